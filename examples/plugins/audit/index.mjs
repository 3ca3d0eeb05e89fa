// A complete hookpilot plugin package: its own options (validated by hookpilot with this schema), a secret
// option (kept out of logs and of every program the gateway runs), a delivery target, and a lifecycle.
// config.yaml:
//   plugins:
//     - use: ./plugins/audit/index.mjs      # or the package name, once installed
//       with: { file: ./audit.jsonl, token: ${AUDIT_TOKEN} }
//   ...and `deliver: audit` on a route.
import { createHmac } from 'node:crypto'
import { appendFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { DeliveryError, definePlugin, v } from 'hookpilot'

export default definePlugin({
  name: 'audit',
  options: v.object({
    file: v.string('the audit file, e.g. ./audit.jsonl'),
    token: v.pipe(v.string('expected a string'), v.minLength(16, 'at least 16 characters')),
  }),
  secrets: ['token'],
  setup(options, ctx) {
    const file = resolve(ctx.baseDir, options.file)
    const write = (record) => {
      const line = JSON.stringify(record)
      const sig = createHmac('sha256', options.token).update(line).digest('hex')
      return appendFile(file, `${JSON.stringify({ ...record, sig })}\n`)
    }
    return {
      name: 'audit',
      deliveryTargets: [{
        name: 'audit',
        async deliver(answer, { log }) {
          await write({ route: answer.route, delivery: answer.deliveryId, text: answer.text }).catch((cause) => {
            throw new DeliveryError('audit', `cannot write ${file}`, { cause, retryable: true })
          })
          log.info('answer audited', { route: answer.route, delivery: answer.deliveryId, file })
        },
      }],
      async start({ log }) {
        log.info('audit plugin started', { file })
      },
      async close() {
        await write({ closed: true })
      },
    }
  },
})
