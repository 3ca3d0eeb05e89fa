/**
 * Issue 32, item 1: the `openai` runner asks the model for the review document's schema (structured output,
 * `response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } }`) when the route's target
 * wants a review document, against a local OpenAI-compatible server (node:http) that answers a document only
 * when the request carries the schema, as a strict server would shape it: every key present, null where absent.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import Ajv from 'ajv'
import { readFileSync } from 'node:fs'
import type { AgentInput } from '../../src/core/types.js'
import { parseAnswer } from '../../src/core/review/document.js'
import { REVIEW_OUTPUT_NAME, REVIEW_OUTPUT_SCHEMA, fromStructuredOutput } from '../../src/core/review/structured-output.js'
import { openaiAgent } from '../../src/plugins/runners/openai/openai-runner.js'
import { pluginContext } from '../../src/testing/context.js'
import { fakeModel, type FakeModel, type ModelCall } from '../fixtures/fake-model.js'

/** What a strict server returns for the schema: every key, `null` for those the model leaves empty. */
const STRICT_ANSWER = {
  summary: 'One problem.',
  verdict: null,
  findings: [
    { path: 'src/a.ts', line: 3, start_line: null, side: null, severity: 'major', title: null, body: 'c is wrong.', suggestion: 'const c = 5' },
    { path: 'src/a.ts', line: 2, start_line: 1, side: 'LEFT', severity: 'nit', title: 'Old b', body: 'the old b.', suggestion: null },
  ],
}

type Format = { type: string, json_schema: { name: string, schema: unknown, strict: boolean, description?: string } }
const formatOf = (call: ModelCall | undefined) => (call?.body as { response_format?: Format } | undefined)?.response_format

let model: FakeModel
beforeAll(async () => {
  // The server checks the request: the document only for a request that carries the review schema, strictly.
  model = await fakeModel((call) => {
    const format = formatOf(call)
    const asked = format?.type === 'json_schema' && format.json_schema.strict && JSON.stringify(format.json_schema.schema) === JSON.stringify(REVIEW_OUTPUT_SCHEMA)
    return { content: asked ? JSON.stringify(STRICT_ANSWER) : 'Looks fine to me.' }
  })
})
afterAll(() => model.close())
beforeEach(() => {
  model.calls.length = 0
})

const input = (format?: AgentInput['format']): AgentInput => ({ prompt: 'review PR 7', route: 'pr', event: 'pull_request', deliveryId: 'd-7', ...(format === undefined ? {} : { format }) })
const runner = (structuredOutput?: boolean) => openaiAgent({ baseUrl: model.url, model: 'gpt-test', structuredOutput })

it('a route that wants a review document: the request carries the schema, strict, and the answer is a valid document (the nulls left out)', async () => {
  const result = await runner().run(input('review'), pluginContext())
  const format = formatOf(model.calls[0])
  expect(format).toMatchObject({ type: 'json_schema', json_schema: { name: REVIEW_OUTPUT_NAME, strict: true } })
  expect(format?.json_schema.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
  expect(result.ok).toBe(true)
  const parsed = parseAnswer(result.ok ? result.text : '')
  expect(parsed).toMatchObject({ ok: true, form: 'document' })
  expect(parsed.ok && parsed.review.findings).toEqual([
    { path: 'src/a.ts', line: 3, side: 'RIGHT', severity: 'major', body: 'c is wrong.', suggestion: 'const c = 5' },
    { path: 'src/a.ts', start_line: 1, line: 2, side: 'LEFT', severity: 'nit', title: 'Old b', body: 'the old b.' },
  ])
})

it('a text route, or agent.structured_output: false, sends no response_format', async () => {
  expect(await runner().run(input(), pluginContext())).toEqual({ ok: true, text: 'Looks fine to me.' })
  expect(await runner(false).run(input('review'), pluginContext())).toEqual({ ok: true, text: 'Looks fine to me.' })
  expect(model.calls.map(formatOf)).toEqual([undefined, undefined])
})

it('the strict schema keeps strict mode\'s rules: every property required, no other property, no keyword strict mode refuses', () => {
  const objects: Record<string, unknown>[] = []
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return
    const o = node as Record<string, unknown>
    if (o['type'] === 'object') objects.push(o)
    for (const value of Object.values(o)) walk(value)
  }
  walk(REVIEW_OUTPUT_SCHEMA)
  expect(objects).toHaveLength(2)
  for (const o of objects) {
    expect(o['additionalProperties']).toBe(false)
    expect([...(o['required'] as string[])].sort()).toEqual(Object.keys(o['properties'] as object).sort())
  }
  for (const refused of ['"if"', '"then"', '"$ref"', '"minLength"', '"maxLength"', '"maxItems"', '"minimum"', '"pattern"']) expect(JSON.stringify(REVIEW_OUTPUT_SCHEMA)).not.toContain(refused)
})

it('what a strict model may answer, its nulls left out, is a document of the shipped schema (schemas/review.schema.json)', () => {
  const ajv = new Ajv({ allErrors: true })
  const shipped = ajv.compile(JSON.parse(readFileSync(new URL('../../schemas/review.schema.json', import.meta.url), 'utf8')) as object)
  const strict = ajv.compile(structuredClone(REVIEW_OUTPUT_SCHEMA) as object)
  expect(strict(STRICT_ANSWER), JSON.stringify(strict.errors)).toBe(true)
  expect(shipped(STRICT_ANSWER)).toBe(false)
  expect(shipped(JSON.parse(fromStructuredOutput(JSON.stringify(STRICT_ANSWER)))), JSON.stringify(shipped.errors)).toBe(true)
  // Prose from a server that ignored the schema is left as it is: the delivery reads it as any answer.
  expect(fromStructuredOutput('Looks fine.')).toBe('Looks fine.')
})

it('a model that refuses fails the run with its words, not retried', async () => {
  const refusing = await fakeModel(() => ({ status: 200, body: { choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' } }] } }))
  try {
    const result = await openaiAgent({ baseUrl: refusing.url, model: 'gpt-test' }).run(input('review'), pluginContext())
    expect(result).toEqual({ ok: false, reason: 'the model refused: I cannot help with that.', retryable: false })
  } finally {
    await refusing.close()
  }
})

it('ships the strict form for agent CLIs (codex exec --output-schema): hookpilot/review.output-schema.json equals what the runner sends', () => {
  const url = new URL('../../schemas/review.output-schema.json', import.meta.url)
  expect(JSON.parse(readFileSync(url, 'utf8'))).toEqual(REVIEW_OUTPUT_SCHEMA)
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, string> }
  expect(pkg.exports['./review.output-schema.json']).toBe('./schemas/review.output-schema.json')
})
