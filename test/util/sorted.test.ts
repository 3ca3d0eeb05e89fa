/** An array kept in order by binary search: inserts land in order (after their equals), removals take the one named. */
import { describe, expect, it } from 'vitest'
import { SortedArray } from '../../src/util/sorted.js'

interface Item { readonly key: number; readonly name: string }
const byKey = (a: Item, b: Item) => a.key - b.key

describe('SortedArray', () => {
  it('keeps its items in order, an item after those already in its place', () => {
    const sorted = new SortedArray<Item>(byKey)
    for (const [key, name] of [[3, 'c'], [1, 'a'], [2, 'b1'], [5, 'e'], [2, 'b2'], [0, 'z']] as const) sorted.add({ key, name })
    expect(sorted.items.map((i) => i.name)).toEqual(['z', 'a', 'b1', 'b2', 'c', 'e'])
    expect(sorted.first()?.name).toBe('z')
    expect(sorted.last()?.name).toBe('e')
    expect(sorted.size).toBe(6)
  })

  it('removes the item named among its equals, and answers whether it held one', () => {
    const sorted = new SortedArray<Item>(byKey)
    const items = [{ key: 1, name: 'a' }, { key: 2, name: 'b1' }, { key: 2, name: 'b2' }, { key: 2, name: 'b3' }, { key: 4, name: 'd' }]
    for (const item of items) sorted.add(item)
    expect(sorted.delete(items[2]!)).toBe(true)
    expect(sorted.items.map((i) => i.name)).toEqual(['a', 'b1', 'b3', 'd'])
    expect(sorted.delete({ key: 2, name: 'other' }, (held) => held.name === 'b1')).toBe(true)
    expect(sorted.items.map((i) => i.name)).toEqual(['a', 'b3', 'd'])
    expect(sorted.delete({ key: 3, name: 'absent' })).toBe(false)
    expect(sorted.delete(items[2]!)).toBe(false) // already gone
    expect(sorted.items.map((i) => i.name)).toEqual(['a', 'b3', 'd'])
  })

  it('holds numbers, a value repeated as often as it was added', () => {
    const turns = new SortedArray<number>((a, b) => a - b)
    for (const n of [4, 1, 4, 2]) turns.add(n)
    turns.delete(4)
    expect(turns.items).toEqual([1, 2, 4])
    turns.delete(4)
    turns.delete(1)
    turns.delete(2)
    expect(turns.size).toBe(0)
    expect(turns.first()).toBeUndefined()
    expect(turns.last()).toBeUndefined()
  })

  it('stays in order through many random adds and removals', () => {
    let seed = 7
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const sorted = new SortedArray<Item>(byKey)
    const held: Item[] = []
    for (let i = 0; i < 2_000; i++) {
      if (held.length > 0 && random() < 0.4) {
        const [gone] = held.splice(Math.floor(random() * held.length), 1)
        expect(sorted.delete(gone!)).toBe(true)
      } else {
        const item = { key: Math.floor(random() * 50), name: String(i) }
        held.push(item)
        sorted.add(item)
      }
    }
    expect(sorted.items.map((i) => i.key)).toEqual(held.map((i) => i.key).sort((a, b) => a - b))
  })
})
