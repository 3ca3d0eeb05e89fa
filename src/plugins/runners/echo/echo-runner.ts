import type { AgentRunner } from '../../../core/types.js'

/**
 * The `echo` agent runner: answers with the rendered prompt itself. It lets a newcomer watch the whole pipeline
 * work with nothing installed, and shows what an agent would be asked.
 *
 * @example
 * ```ts
 * const result = await echoAgent().run({ prompt: 'hi', route: 'pr', event: 'ping', deliveryId: '1' }, ctx)
 * // { ok: true, text: 'hi' }
 * ```
 */
export function echoAgent(): AgentRunner {
  return {
    name: 'echo',
    echoesPrompt: true,
    async run(input, ctx) {
      if (ctx.signal.aborted) return { ok: false, reason: 'aborted before the run started' }
      return { ok: true, text: input.prompt }
    },
  }
}
