/**
 * `pm.watch(tokens)`: the market channel as one `AsyncIterable` of typed events, over as many connections as the
 * token count needs (the channel goes quiet past about 500 assets on one socket), ended by a signal, `close()` or
 * leaving the loop.
 */
import type { Outcome } from '../catalog/model.js'
import { TokenHandle } from '../clob/token.js'
import { MarketUsageError } from '../errors.js'
import { MarketHandle } from '../market-handle.js'
import type { StreamEvent } from './events.js'
import { parseFrame, type UnknownFrameHandler } from './parse.js'
import { createGapFiller } from './gap-filler.js'
import type { GapTradesSource } from './backfill.js'
import { EventQueue } from './queue.js'
import { DEFAULT_MAX_FRAME_BYTES, openConnection, webSocketImpl, type SocketFactory } from './socket.js'

/** The real market channel, used unless `wsUrl` says otherwise. */
export const DEFAULT_WS_URL = 'wss://ws-subscriptions-clob.polymarket.com/ws/market'

/** Tokens per connection unless told otherwise: well under the ~500 where the channel stalls, as NautilusTrader does. */
export const DEFAULT_TOKENS_PER_CONNECTION = 200

/** What can be watched: a token id, an outcome of a catalog market, a token handle, or a market handle (all its tokens). */
export type WatchTarget = string | Outcome | TokenHandle | MarketHandle

/** Options of `pm.watch()` and `pm.watchBooks()`; every one accepts `undefined`. */
export interface WatchOptions {
  /** Ends the iteration and closes the sockets when it aborts (the loop ends quietly, it does not throw). */
  readonly signal?: AbortSignal | undefined
  /** Also receive `best_bid_ask`, `new_market` and `market_resolved` (default false). */
  readonly customFeatures?: boolean | undefined
  /** `PING` every `intervalMs` (default 10,000); no `PONG` within `timeoutMs` (default 30,000) drops the connection. */
  readonly heartbeat?: { readonly intervalMs?: number | undefined; readonly timeoutMs?: number | undefined } | undefined
  /** Backoff of reconnects: full jitter over `baseDelayMs` (500) doubling up to `maxDelayMs` (30,000); `maxAttempts` consecutive failures (default unlimited) fail the stream. */
  readonly reconnect?:
    | {
        readonly baseDelayMs?: number | undefined
        readonly maxDelayMs?: number | undefined
        readonly maxAttempts?: number | undefined
      }
    | undefined
  /**
   * The largest frame taken (default 4 MiB, {@link DEFAULT_MAX_FRAME_BYTES}): a longer one closes the connection,
   * which reconnects and yields `reconnected` with the reason. The channel's frames are far smaller.
   */
  readonly maxFrameBytes?: number | undefined
  /** Tokens per connection (default 200); more tokens open more connections. */
  readonly tokensPerConnection?: number | undefined
  /** Told about every frame or element skipped: plain text, unknown event types, the retired shape, malformed ones. */
  readonly onUnknownFrame?: UnknownFrameHandler | undefined
  /**
   * After a reconnect, give back the trades of the gap before live events resume: one `gap_filled` event (the
   * trades the stream had not yielded, oldest first, fetched from the trades service), or `gap_unfilled` with
   * its reason. Default false.
   */
  readonly backfill?: boolean | undefined
}

/** A running stream: iterate it once; `close()` ends it from outside the loop. */
export interface MarketStream<E> extends AsyncIterable<E> {
  /** Closes the sockets and ends the iteration (idempotent). */
  close(): void
}

/** What the stream needs from its client. */
export interface StreamContext {
  readonly wsUrl: string
  /** For tests and other runtimes; default: the global WebSocket, or `ws` where there is none. */
  readonly WebSocket?: SocketFactory | undefined
  /** The trades service, for `backfill`. */
  readonly trades?: GapTradesSource | undefined
}

/** The token ids of `targets`, in order, without repeats; a target without a token is a usage error. */
export function tokenIdsOf(targets: WatchTarget | readonly WatchTarget[]): string[] {
  const list: readonly WatchTarget[] = Array.isArray(targets) ? targets : [targets as WatchTarget]
  const ids = new Set<string>()
  for (const t of list) {
    if (typeof t === 'string') ids.add(checkId(t))
    else if (t instanceof TokenHandle) ids.add(t.id)
    else if (t instanceof MarketHandle) for (const token of t.tokens) ids.add(token.id)
    else if (t.tokenId === null) throw new MarketUsageError(`Outcome "${t.label}" has no order-book token to watch`)
    else ids.add(checkId(t.tokenId))
  }
  return [...ids]
}

function checkId(id: string): string {
  if (!/^\d+$/.test(id)) throw new MarketUsageError(`Not a token id: ${JSON.stringify(id)} (token ids are long decimal strings)`)
  return id
}

function positive(name: string, n: number | undefined, fallback: number): number {
  if (n === undefined) return fallback
  if (!(n > 0)) throw new MarketUsageError(`${name} must be a positive number, got ${n}`)
  return n
}

/**
 * A stream of events that can also be drained without a promise per event: `take()` gives a queued event or
 * `undefined` when none is queued, `next()` waits for one (and, the first time, opens the sockets). For readers
 * inside the SDK (`watchBooks`), which then skip the iterator protocol's promise on every event that is queued.
 */
export interface EventFeed extends MarketStream<StreamEvent> {
  take(): StreamEvent | undefined
  next(): Promise<IteratorResult<StreamEvent, undefined>>
}

/** Starts watching `tokenIds` (already resolved); the sockets open when the iteration starts. */
export function watchTokens(ctx: StreamContext, tokenIds: readonly string[], options: WatchOptions = {}): EventFeed {
  const custom = options.customFeatures ?? false
  if (tokenIds.length === 0 && !custom) {
    throw new MarketUsageError('Nothing to watch: no token ids (markets without an order book have none)')
  }
  const heartbeat = {
    intervalMs: positive('heartbeat.intervalMs', options.heartbeat?.intervalMs, 10_000),
    timeoutMs: positive('heartbeat.timeoutMs', options.heartbeat?.timeoutMs, 30_000),
  }
  const reconnect = {
    baseDelayMs: positive('reconnect.baseDelayMs', options.reconnect?.baseDelayMs, 500),
    maxDelayMs: positive('reconnect.maxDelayMs', options.reconnect?.maxDelayMs, 30_000),
    maxAttempts: positive('reconnect.maxAttempts', options.reconnect?.maxAttempts, Number.POSITIVE_INFINITY),
    random: Math.random,
  }
  const maxFrameBytes = Math.floor(positive('maxFrameBytes', options.maxFrameBytes, DEFAULT_MAX_FRAME_BYTES))
  const perConnection = Math.floor(positive('tokensPerConnection', options.tokensPerConnection, DEFAULT_TOKENS_PER_CONNECTION))
  const report = options.onUnknownFrame ?? (() => {})
  const watched = new Set(tokenIds)
  if (options.backfill === true && ctx.trades === undefined) throw new MarketUsageError('backfill needs the trades service: watch through a market client')
  const shards: string[][] = []
  for (let i = 0; i < tokenIds.length; i += perConnection) shards.push(tokenIds.slice(i, i + perConnection))
  if (shards.length === 0) shards.push([])

  const queue = new EventQueue<StreamEvent>()
  const connections: { close(): void }[] = []
  const signal = options.signal
  let stopped = false
  // Also from outside the loop (close(), an abort while the reader is busy elsewhere): the sockets go now.
  const stop = (): void => {
    stopped = true
    queue.end()
    signal?.removeEventListener('abort', stop)
    for (const c of connections) c.close()
  }

  async function start(): Promise<void> {
    if (signal?.aborted) return stop()
    signal?.addEventListener('abort', stop, { once: true })
    let WebSocket: SocketFactory
    try {
      WebSocket = ctx.WebSocket ?? (await webSocketImpl(globalThis, maxFrameBytes))
    } catch (error) {
      queue.end(error as Error)
      return stop()
    }
    if (stopped) return
    shards.forEach((ids, index) => {
      // Listing events reach every connection that asked for custom features: keep one copy, the first's.
      const keepListings = index === 0
      const filler = options.backfill === true && ctx.trades !== undefined ? createGapFiller(ctx.trades, ids, (e) => queue.push(e), signal) : undefined
      const emit = (event: StreamEvent): void => {
        const kept = ownEvent(event, watched, keepListings)
        if (kept === undefined) return
        if (filler) filler.live(kept)
        else queue.push(kept)
      }
      connections.push(
        openConnection(
          { url: ctx.wsUrl, tokenIds: ids, customFeatures: custom, heartbeat, reconnect, WebSocket, maxFrameBytes },
          {
            text: (frame) => parseFrame(frame, report, emit),
            reconnected: (reason, attempts, lostAt) => {
              queue.push({ type: 'reconnected', tokenIds: ids, reason, attempts, lostAt })
              filler?.reconnected(lostAt)
            },
            failed: (error) => {
              queue.end(error)
              stop()
            },
          },
        ),
      )
    })
  }

  // A plain iterator over the queue rather than an async generator: a generator's every yield costs a few
  // promises and microtask turns more, per event, at thousands of events a second (docs/sdk.md, "Speed").
  let opened = false
  let returned = false
  const next = (): Promise<IteratorResult<StreamEvent, undefined>> => {
    if (returned) return Promise.resolve({ value: undefined, done: true })
    if (!opened) {
      // The sockets open when the iteration starts.
      opened = true
      if (!stopped) void start()
    }
    return queue.next()
  }
  const iterator: AsyncIterableIterator<StreamEvent, undefined> = {
    next,
    return: () => {
      returned = true
      stop()
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]() {
      return this
    },
  }
  let iterated = false
  return {
    [Symbol.asyncIterator]() {
      if (iterated) throw new MarketUsageError('A market stream can be iterated once; call watch() again for another loop')
      iterated = true
      return iterator
    },
    close: stop,
    take: () => queue.take(),
    next,
  }
}

/**
 * The event if it concerns a watched token: after an unsubscribe, or on a shared connection, others can arrive.
 * A `price_change` keeps only the watched tokens' entries.
 */
function ownEvent(event: StreamEvent, watched: ReadonlySet<string>, keepListings: boolean): StreamEvent | undefined {
  switch (event.type) {
    case 'new_market':
    case 'market_resolved':
      return keepListings ? event : undefined
    case 'price_change': {
      // Counted first: the common case (every change watched) allocates nothing.
      let mine = 0
      for (const c of event.changes) if (watched.has(c.tokenId)) mine++
      if (mine === event.changes.length) return event
      return mine === 0 ? undefined : { ...event, changes: event.changes.filter((c) => watched.has(c.tokenId)) }
    }
    case 'reconnected':
    case 'gap_filled':
    case 'gap_unfilled':
      return event
    default:
      return watched.has(event.tokenId) ? event : undefined
  }
}
