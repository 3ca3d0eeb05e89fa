/**
 * What the policy keeps per pull request in the state store's notes (every backend, shared by instances, kept
 * across restarts): whether it is paused, by whom, and the notice last shown on it (so a notice is posted once,
 * not once per push).
 */
import type { NoteStore } from '../jobs/lifecycle/notes.js'
import { updateNote } from '../jobs/lifecycle/notes.js'
import type { JsonValue } from '../types.js'

/** A paused pull request is forgotten after this long (a month): a pause is not meant to outlive the pull request. */
export const PAUSE_TTL_MS = 30 * 24 * 3600 * 1000
/** A notice's memory: long enough to cover a pull request's life. */
const NOTICE_TTL_MS = 30 * 24 * 3600 * 1000

/** Who paused a pull request, and when. */
export interface Pause {
  readonly by: string
  readonly at: number
}

/** The note key of a pull request's pause: one per pull request, whatever route reviews it. */
export function pauseKey(repo: string, number: number): string {
  return `pause/${repo}#${number}`
}

/** The note key of the notice a route last showed on a pull request. */
export function noticeKey(route: string, repo: string, number: number): string {
  return `notice/${route}/${repo}#${number}`
}

/** The pull request's pause, or undefined when it is not paused. */
export async function pauseOf(notes: NoteStore, repo: string, number: number): Promise<Pause | undefined> {
  const value = (await notes.get(pauseKey(repo, number)))?.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const { by, at } = value
  return typeof by === 'string' && typeof at === 'number' ? { by, at } : undefined
}

/** Pauses (or, with `undefined`, resumes) a pull request; resolves whether that changed anything. */
export function setPause(notes: NoteStore, repo: string, number: number, pause: Pause | undefined): Promise<boolean> {
  return updateNote(notes, pauseKey(repo, number), (current) => {
    const paused = current !== undefined && current !== null
    if (pause === undefined) return paused ? { value: null, result: true } : { result: false }
    return paused ? { result: false } : { value: { by: pause.by, at: pause.at }, result: true }
  }, { ttlMs: PAUSE_TTL_MS })
}

/**
 * Records `topic` (what a notice is about: a rule, a pause) as the route's notice on the pull request; resolves
 * true when it differs from the last one (post it), false when that notice is already there. `undefined` forgets
 * the last one (a review ran since).
 */
export function noteNotice(notes: NoteStore, route: string, repo: string, number: number, topic: string | undefined): Promise<boolean> {
  const text = topic
  return updateNote(notes, noticeKey(route, repo, number), (current: JsonValue | undefined) => {
    if (text === undefined) return current === undefined || current === null ? { result: false } : { value: null, result: false }
    return current === text ? { result: false } : { value: text, result: true }
  }, { ttlMs: NOTICE_TTL_MS })
}
