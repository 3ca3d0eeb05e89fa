/**
 * Reading an agent CLI's machine output (`agent.output`): the answer and what the run used. `claude -p
 * --output-format json` prints one result object (the answer in `result`, `total_cost_usd`, `usage` with the
 * cache's reads and writes); `codex exec --json` prints one event a line (the answer in the last
 * `item.completed` of type `agent_message`, tokens in each `turn.completed`'s `usage`). docs/costs.md shows both.
 */
import type { RunUsage } from '../../../core/usage.js'

/** How the command's stdout is read: as the answer itself, or as a CLI's JSON. */
export type AgentOutput = 'text' | 'claude-json' | 'codex-jsonl'

/** The answer and usage read from the output, or why the output is not what `format` promised. */
export type ReadOutput =
  | { readonly ok: true; readonly text: string; readonly usage?: RunUsage | undefined }
  | { readonly ok: false; readonly reason: string; readonly usage?: RunUsage | undefined }

type Json = Record<string, unknown>
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x)
const tokens = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? Math.round(x) : 0)

/** Reads `stdout` as `format` says; `model` names the model when the output does not (codex's events name none). */
export function readOutput(stdout: string, format: AgentOutput, model: string | undefined): ReadOutput {
  if (format === 'claude-json') return readClaude(stdout, model)
  if (format === 'codex-jsonl') return readCodex(stdout, model)
  // Programs end their output with a newline; the answer is the text, not the terminal convention.
  return { ok: true, text: stdout.replace(/(?:\r?\n)+$/, '') }
}

function readClaude(stdout: string, configured: string | undefined): ReadOutput {
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout)
  } catch {
    return { ok: false, reason: `agent.output is claude-json but the command printed no JSON object (run it with -p --output-format json); it began: ${JSON.stringify(stdout.slice(0, 80))}` }
  }
  // `--output-format json` prints one object; some versions print the whole conversation as an array ending in it.
  const result: unknown = Array.isArray(parsed) ? (parsed as unknown[]).findLast((e) => isObject(e) && e.type === 'result') : parsed
  if (!isObject(result)) return { ok: false, reason: 'agent.output is claude-json but the output holds no result object (run claude with -p --output-format json)' }
  const usage = claudeUsage(result, configured)
  if (result.is_error === true || (typeof result.subtype === 'string' && result.subtype !== 'success')) {
    const said = typeof result.result === 'string' && result.result !== '' ? `: ${result.result.slice(0, 300)}` : ''
    const subtype = typeof result.subtype === 'string' ? result.subtype : 'an error'
    return { ok: false, reason: `claude ended with ${subtype}${said}`, usage }
  }
  if (typeof result.result !== 'string') return { ok: false, reason: 'claude\'s result object has no result text', usage }
  return { ok: true, text: result.result, usage }
}

/**
 * Claude's usage: `input_tokens` counts only the uncached part, so the input is it plus the cache's writes and
 * reads; the reads are the cached tokens. `total_cost_usd` is what the run cost. The model is the one
 * `modelUsage` spent most on, else the configured one.
 */
function claudeUsage(result: Json, configured: string | undefined): RunUsage | undefined {
  const u = result.usage
  if (!isObject(u)) return undefined
  const cached = tokens(u.cache_read_input_tokens)
  const input = tokens(u.input_tokens) + tokens(u.cache_creation_input_tokens) + cached
  const models = isObject(result.modelUsage) ? Object.entries(result.modelUsage) : []
  const costOf = (m: unknown) => (isObject(m) ? tokens(m.costUSD) : 0)
  const top = models.sort(([, a], [, b]) => costOf(b) - costOf(a))[0]?.[0]
  const model = models.length > 1 ? 'mixed' : (top ?? configured)
  const cost = result.total_cost_usd
  return {
    ...(model === undefined ? {} : { model }),
    inputTokens: input,
    outputTokens: tokens(u.output_tokens),
    cachedTokens: cached,
    ...(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? { costUsd: cost } : {}),
  }
}

function readCodex(stdout: string, model: string | undefined): ReadOutput {
  let text: string | undefined
  let failure: string | undefined
  let usage: RunUsage | undefined
  let events = 0
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue
    let event: unknown
    try {
      event = JSON.parse(line)
    } catch {
      continue // codex prints a few lines of its own before the events on some versions
    }
    if (!isObject(event)) continue
    events++
    if (event.type === 'item.completed' && isObject(event.item) && event.item.type === 'agent_message' && typeof event.item.text === 'string') {
      text = event.item.text
    } else if (event.type === 'turn.completed' && isObject(event.usage)) {
      const u = event.usage
      const turn = { inputTokens: tokens(u.input_tokens), outputTokens: tokens(u.output_tokens), cachedTokens: tokens(u.cached_input_tokens) }
      usage = {
        ...(model === undefined ? {} : { model }),
        inputTokens: (usage?.inputTokens ?? 0) + turn.inputTokens,
        outputTokens: (usage?.outputTokens ?? 0) + turn.outputTokens,
        cachedTokens: (usage?.cachedTokens ?? 0) + turn.cachedTokens,
      }
    } else if (event.type === 'turn.failed' || event.type === 'error') {
      const error = isObject(event.error) ? event.error.message : event.message
      failure = typeof error === 'string' ? error.slice(0, 300) : event.type
    }
  }
  if (events === 0) return { ok: false, reason: 'agent.output is codex-jsonl but the command printed no JSON events (run codex exec with --json)' }
  if (failure !== undefined) return { ok: false, reason: `codex failed: ${failure}`, usage }
  if (text === undefined) return { ok: false, reason: 'codex printed no agent_message: it ended without an answer', usage }
  return { ok: true, text, usage }
}
