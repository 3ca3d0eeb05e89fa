/**
 * Helpers for the subscription tests: the CLI run in this process through `main(argv, io)` (or the built one as a
 * real child process, where processes are the point), a temporary project folder with its own config.yaml, and
 * an in-process gateway on a real port that records what it delivers.
 */
import { statSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll } from 'vitest'
import { createGateway, loadConfig, type Gateway } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import type { GatewayPlugin } from '../../src/core/plugin-api/gateway-plugin.js'
import type { AgentAnswer, AgentInput, AgentResult } from '../../src/core/types.js'
import { assertBuilt, CLI, runMain, type CliResult } from '../fixtures/cli.js'
import { recordingLogger, type RecordingLogger } from '../../src/testing/context.js'
import { githubHeaders } from '../fixtures/github.js'

/** The built CLI (`npm test` builds dist/ first); a clear error when it is missing. */
export async function builtCli(): Promise<string> {
  assertBuilt()
  return CLI
}

/** Runs `hookpilot <args>` in this process with `cwd` as its working folder (no WEBHOOK_* variables leak in: see runMain). */
export function hookpilot(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runMain(args, { cwd, env })
}

/** The static route every test project has. */
export const STATIC_SECRET = 'static-secret-0123456789'

/** A temporary folder holding `config.yaml` (one static route `static-pr`, host 0.0.0.0 unless given). */
export async function project(extra: Record<string, unknown> = {}): Promise<{ dir: string; config: string; file: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-sub-'))
  const config = join(dir, 'config.yaml')
  const webhook = { enabled: true, extra: { host: '0.0.0.0', port: 8644, routes: { 'static-pr': { secret: STATIC_SECRET, events: ['pull_request'] } }, ...extra } }
  // JSON is YAML: no serializer needed.
  await writeFile(config, JSON.stringify({ agent: { runner: 'echo' }, platforms: { webhook } }, null, 2))
  return { dir, config, file: join(dir, '.subscriptions.json'), cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** A gateway from a project's config, listening on a free loopback port, that records deliveries and logs. */
export interface LiveGateway {
  readonly gateway: Gateway
  readonly url: string
  readonly log: RecordingLogger
  readonly answers: AgentAnswer[]
}

/** Starts {@link LiveGateway}; `agent` replaces the echo answer (to hold a run open, for instance). */
export async function liveGateway(
  configPath: string,
  dir: string,
  agent?: (input: AgentInput) => Promise<AgentResult>,
): Promise<LiveGateway> {
  const log = recordingLogger()
  const answers: AgentAnswer[] = []
  const recorder: GatewayPlugin = {
    name: 'test-recorder',
    logger: log,
    ...(agent ? { agentRunner: { name: 'echo', run: (input: AgentInput) => agent(input) } } : {}),
    deliveryTargets: [{ name: 'log', deliver: async (answer) => void answers.push(answer) }],
  }
  const gateway = await createGateway(await loadConfig(configPath, { env: {} }), [asPlugin(recorder)], { baseDir: dir })
  const { port } = await gateway.listen({ host: '127.0.0.1', port: 0 })
  return { gateway, url: `http://127.0.0.1:${port}`, log, answers }
}

/** Posts a signed pull_request delivery to `route` and returns the status. */
export async function postSigned(baseUrl: string, route: string, secret: string, event = 'pull_request'): Promise<number> {
  const body = Buffer.from(JSON.stringify({ action: 'opened', number: 1, pull_request: { title: 't' }, repository: { full_name: 'o/r' } }))
  const res = await fetch(`${baseUrl}/webhooks/${route}`, { method: 'POST', headers: githubHeaders(event, body, secret), body })
  await res.arrayBuffer()
  return res.status
}

/** File mode bits (permissions only). */
export function modeOf(path: string): number {
  return statSync(path).mode & 0o777
}

/**
 * Checks the CLI is built before the file's tests and runs the registered clean-ups (newest first) after each test.
 * Returns the function that registers one.
 */
export function cliTestSetup(): (clean: () => Promise<void>) => void {
  const cleanups: Array<() => Promise<void>> = []
  beforeAll(async () => {
    await builtCli()
  })
  afterEach(async () => {
    for (const clean of cleanups.splice(0).reverse()) await clean()
  })
  return (clean) => void cleanups.push(clean)
}
