// Which head a review's start marks and which head an answer is about, for both code hosts' targets.
import { describe, expect, it } from 'vitest'
import { answeredHead, headToMark } from '../../src/plugins/shared/review-start.js'

const [A, B] = ['a'.repeat(40), 'b'.repeat(40)]

describe('headToMark', () => {
  it("marks the prompt's head, unless the event names another or the route reviewed it already", () => {
    expect(headToMark({ 'review.head': A }, undefined)).toBe(A)
    expect(headToMark({ 'review.head': A.toUpperCase() }, A)).toBe(A)
    expect(headToMark({ 'review.head': A }, B)).toBeUndefined()
    expect(headToMark({ 'review.head': A, 'review.previous_head': A }, undefined)).toBeUndefined()
    expect(headToMark({ 'review.head': 'not a sha' }, undefined)).toBeUndefined()
    expect(headToMark(undefined, A)).toBeUndefined()
  })
})

describe('answeredHead', () => {
  it("is the event's head, else the head the agent's prompt named, else unknown", () => {
    expect(answeredHead({ 'review.head': A }, B)).toBe(B)
    expect(answeredHead({ 'review.head': A.toUpperCase() }, undefined)).toBe(A)
    expect(answeredHead({ 'review.head': '$(rm -rf /)' }, undefined)).toBeUndefined()
    expect(answeredHead(undefined, undefined)).toBeUndefined()
  })
})
