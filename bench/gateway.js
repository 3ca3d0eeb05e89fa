/**
 * The hookpilot the bench runs, shared by server.js (over HTTP) and handle-cost.js (through handle()): one
 * route for the signed pull_request, a no-op delivery target, the default logger, and one of two agents:
 *
 *   busy  (default) every run lasts until the gateway stops, as a real agent (a `claude -p`, minutes) does
 *         during a burst: the agent.concurrency slots (4) stay taken, and every accepted event waits in the
 *         queue, stored. What is measured is the acknowledgement, what a sender waits for; max_queue is set
 *         high enough never to answer 503, as rate_limit is never to answer 429.
 *   echo  the built-in echo runner: each event's job is also leased, run, its answer stored and finished in
 *         the same process, at the pace of the pool. Measures the whole life of an event; an echo agent at
 *         thousands of events a second is not what a deployment does.
 */
import { ROUTE, SECRET } from './payload.js'

/**
 * The route's concurrency groups for the `sqlite-groups` row (issue 19): one group per pull request, as the PR
 * review guide sets it. `debounce_seconds` is BENCH_DEBOUNCE (0 by default: a job is due at once, so the busy
 * agent's slots are taken by the first events as in the other rows, and what differs is the group's work on
 * each accept: reading the group's unstarted and running jobs, superseding them, writing the new job's place).
 */
export function benchConcurrency(debounceSeconds = 0) {
  return {
    key: '{repository.full_name}#{pull_request.number}',
    debounce_seconds: debounceSeconds,
    max_wait_seconds: Math.max(300, debounceSeconds),
  }
}

/** The config for `state` (a `state:` section), `agent` (busy or echo) and the route's `concurrency`, if any. */
export function benchConfig(state, agent = 'busy', concurrency = undefined) {
  if (agent !== 'busy' && agent !== 'echo') throw new Error(`BENCH_AGENT must be busy or echo, got "${agent}"`)
  return {
    log_level: 'info',
    agent: { runner: agent === 'busy' ? 'bench-busy' : 'echo', max_queue: 1_000_000_000 },
    state,
    platforms: {
      webhook: {
        extra: {
          host: '127.0.0.1',
          port: 0,
          rate_limit: 1_000_000_000, // high enough never to answer 429
          shutdown_grace_seconds: 0, // a busy run never ends by itself: stop at once, the jobs stay stored
          routes: {
            [ROUTE]: {
              secret: SECRET,
              events: ['pull_request'],
              // A short prompt: with the echo agent, the agent's share of the work stays small.
              prompt: 'PR #{number}: {pull_request.title}',
              deliver: 'bench-null',
              ...(concurrency ? { concurrency } : {}),
            },
          },
        },
      },
    },
  }
}

/** The plugins the config names: the no-op target and the busy runner. */
export async function benchPlugins() {
  const { definePlugin } = await import('../dist/index.js')
  const busy = {
    name: 'bench-busy',
    run: (_input, { signal }) => new Promise((resolve) => {
      const stopped = () => resolve({ ok: false, reason: 'the gateway stopped' })
      if (signal.aborted) stopped()
      else signal.addEventListener('abort', stopped, { once: true })
    }),
  }
  return [
    definePlugin({ name: 'bench-null', setup: () => ({ name: 'bench-null', deliveryTargets: [{ name: 'bench-null', async deliver() {} }] }) }),
    definePlugin({ name: 'bench-busy', setup: () => ({ name: 'bench-busy', agentRunner: busy }) }),
  ]
}
