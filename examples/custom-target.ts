// A custom DeliveryTarget in under 20 lines: append every answer to a file, one JSON line each.
// Type-checked by `npm test` (examples/tsconfig.json). Use it: createGateway(config, [fileTarget('answers.jsonl')]),
// and `deliver: file` on a route.
import { appendFile } from 'node:fs/promises'
import { DeliveryError, defineDeliveryTarget } from 'hookpilot'

export const fileTarget = (path: string) =>
  defineDeliveryTarget({
    name: 'file',
    async deliver(answer, { log }) {
      const line = JSON.stringify({ route: answer.route, id: answer.deliveryId, text: answer.text })
      await appendFile(path, line + '\n').catch((cause: unknown) => {
        throw new DeliveryError('file', `cannot write ${path}`, { cause, retryable: true })
      })
      log.info('answer written', { route: answer.route, delivery: answer.deliveryId, path })
    },
  })
