/**
 * Issue 32, item 1, for agent CLIs: the `command` runner, on a route that wants a review document, reads the
 * document out of Claude Code's `--output-format json` envelope (its `structured_output`, else its `result`) and
 * leaves out the nulls a strict structured output (`codex exec --output-schema`) writes; a text route's answer
 * is left exactly as the program printed it. Real child processes print each answer.
 */
import { expect, it } from 'vitest'
import type { AgentInput } from '../../src/core/types.js'
import { parseAnswer } from '../../src/core/review/document.js'
import { commandAgent } from '../../src/plugins/runners/command/command-runner.js'
import { pluginContext } from '../../src/testing/context.js'

const DOCUMENT = { summary: 'One problem.', findings: [{ path: 'src/a.ts', line: 3, severity: 'major', body: 'c is wrong.' }] }
const STRICT = { summary: 'One problem.', verdict: null, findings: [{ path: 'src/a.ts', line: 3, start_line: null, side: null, severity: 'major', title: null, body: 'c is wrong.', suggestion: null }] }

/** The answer of a program that prints `stdout`, on a route of `format`. */
async function answerOf(stdout: string, format?: AgentInput['format']): Promise<string> {
  const agent = commandAgent({ command: [process.execPath, '-e', `process.stdout.write(${JSON.stringify(stdout)})`], timeoutMs: 10_000 })
  const result = await agent.run({ prompt: 'review', route: 'pr', event: 'pull_request', deliveryId: 'd', ...(format === undefined ? {} : { format }) }, pluginContext())
  if (!result.ok) throw new Error(result.reason)
  return result.text
}

it('claude -p --output-format json --json-schema: the envelope\'s structured_output is the document', async () => {
  const envelope = { type: 'result', subtype: 'success', is_error: false, result: '', session_id: 's', total_cost_usd: 0.01, structured_output: STRICT }
  const text = await answerOf(`${JSON.stringify(envelope)}\n`, 'review')
  expect(parseAnswer(text)).toMatchObject({ ok: true, form: 'document', review: { summary: 'One problem.', findings: [{ path: 'src/a.ts', line: 3, side: 'RIGHT' }] } })
})

it('claude -p --output-format json without a schema: the envelope\'s result text is the answer (a document in a ```json block)', async () => {
  const envelope = { type: 'result', subtype: 'success', result: `Here it is:\n\n\`\`\`json\n${JSON.stringify(DOCUMENT)}\n\`\`\`` }
  const text = await answerOf(JSON.stringify(envelope), 'review')
  expect(parseAnswer(text)).toMatchObject({ ok: true, form: 'document', review: { findings: [{ body: 'c is wrong.' }] } })
})

it('codex exec --output-schema (the strict form): the nulls are left out; prose stays prose; a text route is not touched', async () => {
  expect(parseAnswer(await answerOf(JSON.stringify(STRICT), 'review'))).toMatchObject({ ok: true, form: 'document' })
  expect(await answerOf('Looks fine.\n', 'review')).toBe('Looks fine.')
  expect(await answerOf(JSON.stringify(STRICT))).toBe(JSON.stringify(STRICT))
})
