/**
 * The state-backend contract's cases about notes ({@link NoteStore}): compare-and-set on a version, removal,
 * expiry on the backend's clock, the size bound, and, where the harness can open them, a restart (durable
 * backends keep notes) and two instances on one store (no change lost to a concurrent one).
 */
import { describe, expect } from 'vitest'
import { MAX_NOTE_BYTES, updateNote, type NoteStore } from '../core/jobs/lifecycle/notes.js'
import type { StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { contractWorld, StateBackendHarness } from './state-backend-harness.js'

type World = ReturnType<typeof contractWorld>

/** What the cases need from the contract. */
export interface NotesCases {
  readonly harness: StateBackendHarness
  readonly it: (title: string, fn: () => Promise<void>) => void
  readonly setup: World['setup']
  readonly peer: World['peer']
  readonly restart: World['restart']
}

/** The backend's notes; a backend without them fails here, by name (every built-in one keeps them). */
function notesOf(backend: StateBackend): NoteStore {
  if (backend.notes === undefined) throw new Error(`the ${backend.name} backend keeps no notes`)
  return backend.notes
}

/** Registers the cases. */
export function notesCases({ harness, it, setup, peer, restart }: NotesCases): void {
  if (harness.notes === false) {
    describe('notes', () => {
      it('keeps none, as its harness says', async () => {
        expect((await setup()).backend.notes).toBeUndefined()
      })
    })
    return
  }
  describe('notes', () => {
    it('writes a note by compare-and-set: a stale version is refused and changes nothing', async () => {
      const { backend } = await setup()
      const notes = notesOf(backend)
      expect(await notes.get('review/r/o/r#1')).toBeUndefined()
      expect(await notes.put('review/r/o/r#1', { head: 'a' }, 0)).toBe(1)
      expect(await notes.put('review/r/o/r#1', { head: 'b' }, 0)).toBeUndefined()
      expect(await notes.get('review/r/o/r#1')).toEqual({ value: { head: 'a' }, version: 1 })
      expect(await notes.put('review/r/o/r#1', { head: 'b', open: [1, 2] }, 1)).toBe(2)
      expect(await notes.get('review/r/o/r#1')).toEqual({ value: { head: 'b', open: [1, 2] }, version: 2 })
      expect(await notes.get('review/r/o/r#2')).toBeUndefined()
    })

    it('removes a note written as null, after which it is version 0 again', async () => {
      const notes = notesOf((await setup()).backend)
      await notes.put('pause/x', true, 0)
      expect(await notes.put('pause/x', null, 1)).toBe(2)
      expect(await notes.get('pause/x')).toBeUndefined()
      expect(await notes.put('pause/x', false, 0)).toBe(1)
      // Removing a note that is not there is a write like any other: it wins at version 0 and leaves none.
      expect(await notes.put('none', null, 0)).toBe(1)
      expect(await notes.get('none')).toBeUndefined()
    })

    it('forgets a note its time to live after the write, on the backend clock', async () => {
      const { backend, clock } = await setup()
      const notes = notesOf(backend)
      await notes.put('budget/day', 5, 0, { ttlMs: 60_000 })
      clock.advance(59_000)
      expect((await notes.get('budget/day'))?.value).toBe(5)
      clock.advance(2_000)
      expect(await notes.get('budget/day')).toBeUndefined()
      expect(await notes.put('budget/day', 1, 0)).toBe(1)
    })

    it('refuses a value past the bound, saying how large it was', async () => {
      const notes = notesOf((await setup()).backend)
      await expect(notes.put('big', 'x'.repeat(MAX_NOTE_BYTES), 0)).rejects.toThrow(/bytes of JSON/)
      expect(await notes.get('big')).toBeUndefined()
    })

    it('loses no change when many writers update one note at once', async () => {
      const notes = notesOf((await setup()).backend)
      const add = () => updateNote(notes, 'count', (now) => ({ value: (typeof now === 'number' ? now : 0) + 1, result: undefined }))
      await Promise.all(Array.from({ length: 20 }, add))
      expect((await notes.get('count'))?.value).toBe(20)
    })

    if (harness.reopen) {
      it('keeps notes across a restart', async () => {
        const { backend, options } = await setup()
        await notesOf(backend).put('review/keep', { head: 'c' }, 0)
        const next = await restart(backend, options)
        expect(await notesOf(next).get('review/keep')).toEqual({ value: { head: 'c' }, version: 1 })
      })
    }

    if (harness.peer) {
      it('two instances on one store share notes, and no change of either is lost', async () => {
        const { backend, options } = await setup()
        const other = await peer(backend, options)
        const add = (on: StateBackend) => updateNote(notesOf(on), 'shared', (now) => ({ value: (typeof now === 'number' ? now : 0) + 1, result: undefined }))
        await Promise.all(Array.from({ length: 20 }, (_, i) => add(i % 2 === 0 ? backend : other)))
        expect((await notesOf(other).get('shared'))?.value).toBe(20)
        expect((await notesOf(backend).get('shared'))?.value).toBe(20)
      })
    }
  })
}
