#!/usr/bin/env node
// Posts a signed GitHub pull_request "opened" event to a running gateway, as GitHub would, and prints the answer.
// Usage: node examples/send-test-webhook.mjs [url] [secret]
// Defaults match examples/config.yaml: http://127.0.0.1:8644/webhooks/github-pr-review, hookpilot-example-secret.
import { createHmac, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'

// `||`, not `??`: an empty variable falls back, as ${VAR:-default} does in the config.
const url = process.argv[2] ?? `http://127.0.0.1:${process.env.WEBHOOK_PORT || 8644}/webhooks/github-pr-review`
const secret = process.argv[3] ?? (process.env.GITHUB_WEBHOOK_SECRET || 'hookpilot-example-secret')
const body = await readFile(new URL('./payloads/pull_request.opened.json', import.meta.url))

try {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': randomUUID(),
      // GitHub signs the raw bytes it sends: so do we.
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  })
  console.log(res.status, await res.text())
  process.exitCode = res.ok ? 0 : 1
} catch (err) {
  console.error(`Cannot reach ${url}: ${err.cause?.code ?? err.message}. Is the gateway running (npx --no-install hookpilot serve --config examples/config.yaml)?`)
  process.exitCode = 1
}
