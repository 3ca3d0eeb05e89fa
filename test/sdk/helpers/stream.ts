// Shared by the stream tests: sample frames of the real channel, fast heartbeat/backoff settings, a bounded reader.
import { readFileSync } from 'node:fs'
import { afterEach } from 'vitest'
import type { WatchOptions } from '../../../src/sdk/index.js'
import { startMockMarketServer, type MockMarketServer } from '../../../src/sdk/mock/index.js'
import { fileResource } from '../../fixtures/file-resource.js'

/**
 * A sample frame of the market channel, as text (test/sdk/fixtures/stream: the real frame shapes, from the channel's
 * public documentation and published probes).
 */
export function sample(name: string): string {
  return readFileSync(new URL(`../fixtures/stream/${name}.json`, import.meta.url), 'utf8')
}

/**
 * The shipped mock on a port of its own for the file's tests, its market moved only by `tick()`, and reset after
 * each test (see fileResource).
 */
export function useMockMarket(): MockMarketServer {
  const mock = fileResource(() => startMockMarketServer({ port: 0, tickMs: 0 }), (started) => started.close())
  afterEach(() => mock.reset())
  return mock
}

/** The mock's market the stream tests watch. */
export const SLUG = 'will-2-fed-rate-cuts-happen-in-2025'

/** The sample frames' YES and NO tokens. */
export const SAMPLE_YES = '71321045679252212594626385532706912750332728571942532289631379312455583992563'
export const SAMPLE_NO = '52114319501245915516055106046884209969926127482827954674443846427813813222426'

/** Short heartbeat and backoff: reconnects in milliseconds, and a timeout that a busy machine's late PONG does not reach. */
export const FAST: WatchOptions = {
  heartbeat: { intervalMs: 25, timeoutMs: 1000 },
  reconnect: { baseDelayMs: 5, maxDelayMs: 20 },
}

/**
 * Reads from `iterator` until `until` says stop, giving up (with what was read) after `ms`: a hung stream fails
 * the test with its events rather than hitting the test timeout with nothing to show.
 */
export async function readUntil<T>(iterator: AsyncIterator<T>, until: (seen: T[]) => boolean, ms = 5000): Promise<T[]> {
  const seen: T[] = []
  const deadline = Date.now() + ms
  while (!until(seen)) {
    const left = deadline - Date.now()
    if (left <= 0) throw new Error(`stream gave ${seen.length} items and then nothing for ${ms} ms: ${JSON.stringify(seen.map(brief))}`)
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left)))
    const next = await Promise.race([iterator.next(), timeout])
    clearTimeout(timer)
    if (next === 'timeout') continue
    if (next.done) break
    seen.push(next.value)
  }
  return seen
}

function brief(x: unknown): unknown {
  if (typeof x !== 'object' || x === null) return x
  const o = x as Record<string, unknown>
  return o['type'] ?? o['source'] ?? Object.keys(o)
}

/** Waits until `check` is true, polling; fails after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 5))
  }
}
