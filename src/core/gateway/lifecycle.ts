/**
 * Opening and closing what plugins hold, with the gateway: in order on the way up, in reverse on the way down,
 * and a failed start closes what was already open before the error goes on (no file or connection is left
 * behind by a gateway that never ran).
 */
import { GatewayError, messageOf } from '../errors.js'
import type { LifecycleContext, Readiness } from '../jobs/lifecycle/state-backend.js'
import type { Logger } from '../types.js'

/** Anything with a lifecycle: a plugin, a state backend. */
export interface HasLifecycle {
  readonly name: string
  start?(ctx: LifecycleContext): Promise<void>
  close?(): Promise<void>
  ready?(): Readiness | Promise<Readiness>
}

/** What {@link startAll} started. */
export interface Started {
  /** Aborted when {@link Started.closeAll} begins; event filters receive it. */
  readonly signal: AbortSignal
  /** The first started item that is not ready, with its reason; `ok` when all are. */
  ready(): Promise<Readiness>
  /** Closes every started item, last first; a failing close is logged and the others still close. */
  closeAll(): Promise<void>
}

/** Starts each item in order. */
export async function startAll(items: readonly HasLifecycle[], log: Logger): Promise<Started> {
  const started: HasLifecycle[] = []
  const closing = new AbortController()
  const closeAll = async () => {
    closing.abort(new GatewayError('ERR_CLOSED', 'The gateway was closed.'))
    for (const item of started.splice(0).reverse()) {
      try {
        await item.close?.()
      } catch (err) {
        log.error('plugin close failed', { plugin: item.name, reason: messageOf(err) })
      }
    }
  }
  for (const item of items) {
    try {
      await item.start?.({ log })
    } catch (err) {
      await closeAll()
      throw err
    }
    started.push(item)
  }
  return {
    signal: closing.signal,
    async ready() {
      for (const item of started) {
        const answer = (await item.ready?.()) ?? { ok: true }
        if (!answer.ok) return { ok: false, reason: `${item.name}: ${answer.reason}` }
      }
      return { ok: true }
    },
    closeAll,
  }
}
