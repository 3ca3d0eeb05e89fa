/**
 * What the agent is given for one event: the prompt as one text (for CLI agents, which take one), and the same
 * prompt in two parts, the operator's instructions and the payload's values, for runners that can keep
 * untrusted text apart from instructions (the openai runner puts them in different messages).
 */
import { loadFirstSkill } from './skills.js'
import { defaultPrompt, renderTemplate, templateFields, type TemplateVariables } from '../routes/template.js'
import type { Logger, PromptParts, Route, WebhookEvent } from '../types.js'

/** The prompt of one event, whole and in parts. */
export interface AgentPrompt {
  readonly prompt: string
  readonly parts: PromptParts
}

/**
 * Builds the prompt: the first skill found, then the route's template rendered (or the whole payload).
 * `variables`: values the template may name besides the payload's (`{review.head}`), from the route's target.
 */
export async function buildAgentPrompt(
  job: { readonly event: WebhookEvent; readonly route: Route },
  skillsDir: string,
  log: Logger,
  fields: Readonly<Record<string, string>>,
  variables?: TemplateVariables,
): Promise<AgentPrompt> {
  const { event, route } = job
  const skill = route.skills.length > 0 ? await loadFirstSkill(skillsDir, route.skills, log, fields) : undefined
  const withSkill = (text: string) => (skill === undefined ? text : `${skill.trimEnd()}\n\n${text}`)
  if (route.prompt === undefined) {
    return {
      prompt: withSkill(defaultPrompt(event.type, route.name, event.payload)),
      parts: {
        instructions: withSkill(`Webhook event '${event.type}' on route '${route.name}': its payload is {payload}.`),
        fields: { payload: JSON.stringify(event.payload, null, 2) },
      },
    }
  }
  return {
    prompt: withSkill(renderTemplate(route.prompt, event.payload, variables)),
    parts: { instructions: withSkill(route.prompt), fields: templateFields(route.prompt, event.payload, variables) },
  }
}
