/**
 * An extra path a plugin answers on the gateway's own listener (`/metrics`, `/status`, a login form): the request
 * flow (flow.ts) serves it before any route, and a plugin lists it in its `endpoints`.
 */
import type { GatewayResponse } from './responses.js'

/** A GET (and HEAD) path a plugin answers on the gateway's listener; a form's POST too when it says so. */
export interface Endpoint {
  readonly path: string
  /**
   * When set, the path also takes a POST (a login form), its body read under this many bytes (and the budget of
   * unverified bytes, like a webhook's); without it a POST is answered 405.
   */
  readonly formBytes?: number | undefined
  handle(req: EndpointRequest): Promise<GatewayResponse>
}

/** What an {@link Endpoint} is asked. */
export interface EndpointRequest {
  readonly method: string
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
  /** A POST's body (only for an endpoint with `formBytes`). */
  readonly body?: Uint8Array | undefined
  /** The client's address, as the request log names it (behind a trusted proxy, the one it forwarded for). */
  readonly clientAddress?: string | undefined
}
