/**
 * The chat-completions wire: the request the runner sends, the shape of the answer it accepts (validated, since
 * "OpenAI-compatible" servers differ in the details), and one HTTP call whose every failure is a reason.
 */
import ky, { type KyInstance } from 'ky'
import * as v from 'valibot'
import { field, parseJson, textField } from '../../shared/json-body.js'
import { redact } from '../../shared/redact.js'
import { readBounded } from '../../../util/read-bounded.js'
import { parseRetryAfter } from '../../../util/retry-after.js'
import type { RunUsage } from '../../../core/usage.js'

/** One message of the conversation, as the API takes it. */
export type ChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string }

const toolCallSchema = v.object({
  id: v.string(),
  type: v.optional(v.string(), 'function'),
  function: v.object({
    name: v.string(),
    // OpenAI sends a JSON string; some compatible servers send the object itself.
    arguments: v.optional(v.union([v.string(), v.pipe(v.record(v.string(), v.unknown()), v.transform((o) => JSON.stringify(o)))]), '{}'),
  }),
})

/** A count the API reports, or nothing: a compatible server that sends null or junk costs no run. */
const count = v.optional(v.fallback(v.pipe(v.number(), v.integer(), v.minValue(0)), 0), 0)

/**
 * What a call used, as OpenAI reports it (`prompt_tokens_details.cached_tokens` where the API has a prompt
 * cache); compatible servers that omit it answer without usage, and the run reports none for that call.
 */
const usageSchema = v.object({
  prompt_tokens: count,
  completion_tokens: count,
  prompt_tokens_details: v.optional(v.nullable(v.object({ cached_tokens: count })), null),
})

const completionSchema = v.object({
  model: v.optional(v.fallback(v.string(), ''), ''),
  usage: v.optional(v.fallback(v.nullable(usageSchema), null), null),
  choices: v.pipe(
    v.array(
      v.object({
        message: v.object({
          content: v.optional(v.nullable(v.string()), null),
          // Structured output: a model that declines says why here, with no content.
          refusal: v.optional(v.nullable(v.string()), null),
          tool_calls: v.optional(v.nullable(v.array(toolCallSchema)), null),
        }),
      }),
    ),
    v.minLength(1),
  ),
})

/** A tool call the model asked for. */
export type ToolCall = v.InferOutput<typeof toolCallSchema>
/** The message of the first choice. */
export type ModelMessage = v.InferOutput<typeof completionSchema>['choices'][number]['message']

/** How the runner reaches the model. */
export interface ModelEndpoint {
  /** As OpenAI clients take it: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string
  readonly apiKey?: string | undefined
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Most bytes of one response body read; past it the call fails (the body is not read further). */
  readonly maxResponseBytes: number
}

/**
 * One call's outcome: the model's message, or why there is none, and whether another run may do better (the
 * agent's retry schedule decides when; `retryAfterMs` is the API's `Retry-After`).
 */
export type Completion =
  | { readonly ok: true; readonly message: ModelMessage; readonly usage?: RunUsage | undefined }
  | {
      readonly ok: false
      readonly reason: string
      readonly retryable?: boolean
      readonly retryAfterMs?: number | undefined
      /** Set only when the API answered and counted the call (no choices); a refused call used nothing. */
      readonly usage?: RunUsage | undefined
      /** The HTTP status, when the API answered one (429: the rate limit). */
      readonly status?: number | undefined
    }

/**
 * HTTP statuses of a passing trouble: a timeout, a conflict, too many requests, the server's own failures. Any
 * other 4xx is the request's fault (a bad key, an unknown model): the same run would get it again.
 */
const PASSING = new Set([408, 409, 425, 429])
const passing = (status: number) => PASSING.has(status) || status >= 500

/** Creates the client of one runner; `complete` sends one request and never throws. */
export function modelClient(endpoint: ModelEndpoint): (body: object, signal: AbortSignal) => Promise<Completion> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`
  const secrets = [endpoint.apiKey]
  const client: KyInstance = ky.create({
    fetch: (input, init) => (endpoint.fetch ?? globalThis.fetch)(input, init),
    retry: 0,
    throwHttpErrors: false,
    timeout: false, // the run's own signal bounds it
    headers: endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {},
  })

  return async function complete(body, signal) {
    let status: number
    let text: string
    let retryAfterMs: number | undefined
    try {
      const response = await client.post(url, { json: body, signal })
      status = response.status
      retryAfterMs = parseRetryAfter(response.headers.get('retry-after'))
      const read = await boundedText(response, endpoint.maxResponseBytes)
      if (read === undefined) {
        const reason = `the model API's reply was larger than ${endpoint.maxResponseBytes} bytes and was not read further; raise agent.max_output_bytes if that much is expected`
        return { ok: false, reason, retryable: false }
      }
      text = read
    } catch (error) {
      if (signal.aborted) throw signal.reason // the runner reports aborts and timeouts itself
      return { ok: false, reason: `could not reach the model API at ${new URL(url).host}: ${redact((error as Error).message, secrets)}` }
    }
    const json = parseJson(text)
    if (status < 200 || status > 299) return { ok: false, reason: httpReason(status, json, text, secrets), retryable: passing(status), retryAfterMs, status }
    const parsed = v.safeParse(completionSchema, json)
    if (!parsed.success) {
      return { ok: false, reason: `the model API answered ${status} with an unexpected body (${v.summarize(parsed.issues).split('\n')[0]})` }
    }
    const first = parsed.output.choices[0]
    const usage = usageOfReply(parsed.output.usage, parsed.output.model)
    return first ? { ok: true, message: first.message, usage } : { ok: false, reason: 'the model API answered with no choices', usage }
  }
}

/** A reply's usage as the gateway counts it; undefined when the server reported none. */
function usageOfReply(usage: v.InferOutput<typeof usageSchema> | null, model: string): RunUsage | undefined {
  if (usage === null) return undefined
  const cached = usage.prompt_tokens_details?.cached_tokens
  return {
    ...(model === '' ? {} : { model }),
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    ...(cached === undefined ? {} : { cachedTokens: cached }),
  }
}

/** The body as text, or undefined as soon as it passes `max` bytes (the rest is not read). */
async function boundedText(response: Response, max: number): Promise<string | undefined> {
  const read = await readBounded(response.body as ReadableStream<Uint8Array> | null, (size) => (size > max ? 'too-large' : undefined))
  return read.ok ? new TextDecoder().decode(read.bytes) : undefined
}

function httpReason(status: number, json: unknown, text: string, secrets: readonly (string | undefined)[]): string {
  const said = textField(field(json, 'error'), 'message') ?? textField(json, 'error') ?? text.trim().slice(0, 200)
  const detail = said ? `: ${redact(said, secrets).slice(0, 300)}` : ''
  const hint =
    status === 401 || status === 403 ? ' (check agent.api_key)'
    : status === 404 ? ' (check agent.base_url and agent.model)'
    : ''
  return `the model API answered HTTP ${status}${detail}${hint}`
}
