/**
 * One connection to the market channel for a set of tokens, kept alive: a `PING` every `intervalMs`, and no `PONG`
 * within `timeoutMs` means the connection is dead. Any loss reconnects after a jittered exponential backoff and
 * re-sends the whole subscription (with its custom-feature flag, which is per connection and lost otherwise).
 */
import { backoffDelay, fullJitter, type Backoff } from '../../util/backoff.js'
import { MarketStreamError } from '../errors.js'

/** What the SDK needs of a WebSocket: the browser API, which both the global one and `ws` provide. */
export interface SocketLike {
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onclose: ((event: unknown) => void) | null
  onerror: ((event: unknown) => void) | null
  send(data: string): void
  close(code?: number): void
  /** `ws` only: drops the socket without a closing handshake (a frozen peer would never answer one). */
  terminate?: () => void
}

/** A WebSocket constructor. */
export type SocketFactory = new (url: string) => SocketLike

/**
 * The largest frame the channel's sockets take by default: 4 MiB. A book snapshot of 200 tokens is well under
 * it, and `ws`'s own default (100 MiB) let a hostile server hold a gateway's loop for seconds parsing frames of
 * 90 MB while webhooks waited for their answer (issue 38, item 4).
 */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024

/**
 * The WebSocket to use: the global one where the runtime has it (Node 22+, Deno, Bun, browsers), else the `ws`
 * package (Node 20 has no global WebSocket), made to refuse a frame over `maxFrameBytes` while it arrives
 * (`maxPayload`: the frame is never buffered whole). A global WebSocket has no such setting: there a frame over
 * the cap is dropped when it arrives, unparsed (see openConnection).
 */
export async function webSocketImpl(global: { WebSocket?: unknown } = globalThis, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES): Promise<SocketFactory> {
  if (typeof global.WebSocket === 'function') return global.WebSocket as SocketFactory
  const ws = await import('ws')
  return class CappedWebSocket extends ws.WebSocket {
    constructor(url: string) {
      super(url, { maxPayload: maxFrameBytes })
    }
  } as unknown as SocketFactory
}

/** `ws`'s error for a frame over `maxPayload`; it then closes the socket with 1009 (message too big). */
const FRAME_TOO_BIG = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
const MESSAGE_TOO_BIG = 1009

/** Whether a socket's error or close event says a frame was over the cap. */
function frameTooBig(event: unknown): boolean {
  if (typeof event !== 'object' || event === null) return false
  const { error, code } = event as { error?: { code?: unknown }; code?: unknown }
  return code === MESSAGE_TOO_BIG || error?.code === FRAME_TOO_BIG
}

/** Reconnection settings, with every default filled in. */
export interface ReconnectPolicy extends Backoff {
  /** Consecutive failed attempts before the stream fails with MarketStreamError (default: never). */
  readonly maxAttempts: number
  /** A number in [0, 1) for the jitter; replaceable in tests. */
  readonly random: () => number
}

/** Full jitter: a random wait in [0, min(max, base × 2^(attempt-1))), so many clients do not come back at once. */
export function reconnectDelayMs(policy: ReconnectPolicy, attempt: number): number {
  return fullJitter(backoffDelay(policy, attempt), policy.random)
}

/** What one connection reports to the stream it belongs to. */
export interface ConnectionHandlers {
  /** A data frame (anything but `PONG`). */
  text(frame: string): void
  /** The connection is back after a loss and subscribed again. */
  reconnected(reason: string, attempts: number, lostAt: Date): void
  /** Reconnecting gave up (`maxAttempts`). */
  failed(error: MarketStreamError): void
}

/** Settings of one connection. */
export interface ConnectionOptions {
  readonly url: string
  readonly tokenIds: readonly string[]
  readonly customFeatures: boolean
  readonly heartbeat: { readonly intervalMs: number; readonly timeoutMs: number }
  readonly reconnect: ReconnectPolicy
  readonly WebSocket: SocketFactory
  /** A frame longer than this closes the connection, which reconnects (see webSocketImpl). */
  readonly maxFrameBytes: number
}

const noop = (): void => {}

/** Opens the connection now; `close()` ends it for good. */
export function openConnection(o: ConnectionOptions, on: ConnectionHandlers): { close(): void } {
  let socket: SocketLike | undefined
  let closed = false
  let everOpened = false
  let failures = 0
  let lost: { reason: string; at: Date } | undefined
  let ping: ReturnType<typeof setInterval> | undefined
  let pongDeadline: ReturnType<typeof setTimeout> | undefined
  let retry: ReturnType<typeof setTimeout> | undefined
  const tooBig = `a frame over ${o.maxFrameBytes} bytes (maxFrameBytes)`
  const subscription = JSON.stringify({
    assets_ids: o.tokenIds,
    type: 'market',
    // Sent explicitly: with many assets the default has not always produced the snapshots.
    initial_dump: true,
    custom_feature_enabled: o.customFeatures,
  })

  function connect(): void {
    let ws: SocketLike
    try {
      ws = new o.WebSocket(o.url)
    } catch (cause) {
      // A URL the WebSocket refuses (not ws: or wss:, malformed) will not work on a later try either.
      closed = true
      on.failed(new MarketStreamError(`Cannot open the market channel at ${o.url}: ${(cause as Error).message}`, { cause }))
      return
    }
    socket = ws
    ws.onopen = () => {
      ws.send(subscription)
      ping = setInterval(() => {
        ws.send('PING')
        pongDeadline ??= setTimeout(() => drop('heartbeat timeout'), o.heartbeat.timeoutMs)
      }, o.heartbeat.intervalMs)
      if (everOpened && lost !== undefined) on.reconnected(lost.reason, failures, lost.at)
      everOpened = true
      lost = undefined
    }
    ws.onmessage = ({ data }) => {
      // Only an answer proves the connection works: resetting on open alone would loop on a server that drops us.
      if (typeof data !== 'string') return
      // Where the socket could not refuse it while it arrived (a global WebSocket), it is at least not parsed.
      if (data.length > o.maxFrameBytes) return drop(tooBig)
      failures = 0
      if (data === 'PONG') {
        clearTimeout(pongDeadline)
        pongDeadline = undefined
        return
      }
      on.text(data)
    }
    ws.onclose = (event) => drop(frameTooBig(event) ? tooBig : 'closed')
    ws.onerror = (event) => drop(frameTooBig(event) ? tooBig : 'error')
  }

  function stopTimers(): void {
    clearInterval(ping)
    clearTimeout(pongDeadline)
    clearTimeout(retry)
    ping = pongDeadline = retry = undefined
  }

  function release(ws: SocketLike | undefined, code?: number): void {
    if (ws === undefined) return
    // Handlers become no-ops rather than null: `ws` throws an 'error' event that has no listener.
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = noop
    try {
      if (code === undefined && ws.terminate) ws.terminate()
      else ws.close(code)
    } catch {
      // Closing a socket that is still connecting can throw; it is being given up either way.
    }
  }

  function drop(reason: string): void {
    if (closed) return
    stopTimers()
    release(socket)
    socket = undefined
    lost ??= { reason, at: new Date() }
    failures++
    if (failures > o.reconnect.maxAttempts) {
      closed = true
      on.failed(new MarketStreamError(`The market channel (${o.url}) could not be reached after ${failures} attempts (${reason})`))
      return
    }
    retry = setTimeout(() => {
      retry = undefined
      connect()
    }, reconnectDelayMs(o.reconnect, failures))
  }

  connect()
  return {
    close() {
      if (closed) return
      closed = true
      stopTimers()
      release(socket, 1000)
      socket = undefined
    },
  }
}
