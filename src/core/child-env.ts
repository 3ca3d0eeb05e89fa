/**
 * The environment of the programs the gateway runs (the agent, its tools, gh). They inherit the gateway's
 * environment, so that their own credentials (an API key, GH_TOKEN) work, but not the gateway's own secrets:
 * a prompt-injected agent must not be able to print the webhook secret or a chat token into a public comment.
 * The secrets are the routes' and every plugin's secret options (see plugin-setup.ts).
 */
/** `env` without the variables whose value is one of `secrets`. */
export function childEnv(secrets: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (secrets.length === 0) return { ...env }
  const hidden = new Set(secrets)
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value === undefined || !hidden.has(value)))
}
