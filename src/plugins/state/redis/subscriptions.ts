/**
 * Dynamic subscriptions in Redis, for every instance: the set is one JSON value (the file's format), changed by
 * compare-and-set so concurrent commands never lose each other's entries, and each change is announced on a
 * channel that every running gateway listens to, so it re-reads the set at once and never per request.
 */
import type { Redis } from 'ioredis'
import { GatewayError } from '../../../core/errors.js'
import { emptySubscriptions, parseSubscriptionsText } from '../../../core/routes/subscriptions/schema.js'
import type { SubscriptionsRead } from '../../../core/routes/subscriptions/store.js'
import type { SubscriptionStore } from '../../../core/routes/subscriptions/subscription-store.js'
import type { Keys } from './keys.js'
import { luaScript } from './script.js'

/** Writes ARGV[2] if the value is still ARGV[1] ('' standing for none), and announces the change. */
const COMPARE_AND_SET = luaScript(`
local current = redis.call('GET', KEYS[1])
if (current == false and ARGV[1] ~= '') or (current ~= false and current ~= ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('PUBLISH', KEYS[2], '1')
return 1`)

/** The store over `commands`; `events` is the connection that listens for changes (subscriber mode). */
export function redisSubscriptionStore(commands: () => Redis, events: () => Redis, keys: Keys, shownUrl: string): SubscriptionStore {
  const readText = () => commands().get(keys.subscriptions)
  const parse = (text: string | null): SubscriptionsRead => {
    if (text === null) return { status: 'missing' }
    const parsed = parseSubscriptionsText(text)
    return parsed.ok ? { status: 'ok', file: parsed.file } : { status: 'invalid', reason: parsed.reason }
  }
  const where = `Redis ${shownUrl} (key ${keys.subscriptions})`
  return {
    where,
    read: async () => parse(await readText()),
    async update(change) {
      for (let tries = 0; tries < 50; tries++) {
        const text = await readText()
        const read = parse(text)
        if (read.status === 'invalid') {
          throw new GatewayError('ERR_SUBSCRIPTION', `The subscriptions in ${where} are invalid (${read.reason}); fix or delete the key first.`)
        }
        const { file, result } = change(read.status === 'ok' ? read.file : emptySubscriptions())
        if (file === undefined) return result
        const written = await COMPARE_AND_SET(commands(), [keys.subscriptions, keys.subscriptionsChanged], [text ?? '', JSON.stringify(file, null, 2)])
        if (Number(written) === 1) return result
      }
      throw new GatewayError('ERR_SUBSCRIPTION', `The subscriptions in ${where} kept changing under this command; try again.`)
    },
    watch(onChange) {
      const client = events()
      const onMessage = (channel: string) => {
        if (channel === keys.subscriptionsChanged) onChange()
      }
      // After a reconnection announcements may have been missed: read the set again.
      const onReady = () => onChange()
      client.on('message', onMessage)
      client.on('ready', onReady)
      // Once listening, one more read: a change made while the subscription was being set up is not missed.
      void client.subscribe(keys.subscriptionsChanged).then(onChange, () => {})
      return () => {
        client.off('message', onMessage)
        client.off('ready', onReady)
        void client.unsubscribe(keys.subscriptionsChanged).catch(() => {})
      }
    },
  }
}
