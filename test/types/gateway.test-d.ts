import { expectAssignable, expectError, expectType } from 'tsd'
import {
  createGateway, definePlugin, parseConfig,
  type AgentAnswer, type DeliveryContext, type DeliveryTarget, type Gateway, type GatewayPlugin, type HookpilotConfig, type PluginDefinition,
} from '../../dist/index.js'

// A well-typed config is accepted, and the result is a Gateway.
expectType<Promise<Gateway>>(createGateway({ platforms: { webhook: { extra: { port: 8644, routes: { pr: { secret: 's', events: ['pull_request'] } } } } } }))

// Wrongly typed configs are refused by the compiler.
expectError(createGateway({ platforms: { webhook: { extra: { port: true } } } }))
expectError(createGateway({ platforms: { webhook: { extra: { routes: { pr: { events: 'pull_request' } } } } } }))
expectError(createGateway({ agent: { concurrency: [4] } }))
expectError(createGateway({ platforms: { webhook: { extra: { routez: {} } } } }))

// What setup returns is typed by context: a target's deliver needs no annotations.
const audit = definePlugin({
  name: 'audit',
  setup: () => ({
    name: 'audit',
    deliveryTargets: [{
      name: 'audit',
      async deliver(answer, ctx) {
        expectType<AgentAnswer>(answer)
        expectType<DeliveryContext>(ctx)
        expectType<string>(answer.text)
        expectType<number>(ctx.attempt)
      },
    }],
  }),
})
expectAssignable<PluginDefinition>(audit)
expectError(definePlugin({ name: 'bad', setup: () => ({ name: 'bad', deliveryTargets: [{ name: 'bad', deliver: (_answer: number) => Promise.resolve() }] }) }))
expectError<DeliveryTarget>({ name: 'sync', deliver: () => 'not a promise' })

// A runner must return an AgentResult.
expectAssignable<GatewayPlugin>({ name: 'r', agentRunner: { name: 'r', run: async (input) => ({ ok: true as const, text: input.prompt }) } })
expectError(definePlugin({ name: 'r', setup: () => ({ name: 'r', agentRunner: { name: 'r', run: async () => 'text' } }) }))

// createGateway takes plugin definitions only: a plain plugin object is refused by the compiler.
expectError(createGateway({}, [{ name: 'plain', deliveryTargets: [] }]))
expectType<Promise<Gateway>>(createGateway({}, [audit]))

// parseConfig returns the validated shape with defaults filled in.
const config = parseConfig({})
expectType<HookpilotConfig>(config)
expectType<number>(config.platforms.webhook.extra.port)
expectType<string>(config.agent.runner)

// Option bags accept `| undefined`, so process.env values fit without a cast.
expectType<Promise<Gateway>>(createGateway({ platforms: { webhook: { extra: { secret: process.env['WEBHOOK_SECRET'], routes: { pr: { secret: process.env['PR_SECRET'] } } } } } }))
