// A custom DeliveryTarget in about 20 lines: append every answer to a file, one JSON line each.
// Type-checked by `npm test` (examples/tsconfig.json). Use it: createGateway(config, [fileTarget('answers.jsonl')]),
// and `deliver: file` on a route.
import { appendFile } from 'node:fs/promises'
import { DeliveryError, definePlugin, type DeliveryTarget } from 'hookpilot'

const target = (path: string): DeliveryTarget => ({
  name: 'file',
  async deliver(answer, { log }) {
    const line = JSON.stringify({ route: answer.route, id: answer.deliveryId, text: answer.text })
    await appendFile(path, line + '\n').catch((cause: unknown) => {
      throw new DeliveryError('file', `cannot write ${path}`, { cause, retryable: true })
    })
    log.info('answer written', { route: answer.route, delivery: answer.deliveryId, path })
  },
})

export const fileTarget = (path: string) => definePlugin({ name: 'file', setup: () => ({ name: 'file', deliveryTargets: [target(path)] }) })
