import { expectAssignable, expectError, expectType } from 'tsd'
import {
  createGateway, defineDeliveryTarget, defineAgentRunner, parseConfig,
  type AgentAnswer, type DeliveryContext, type Gateway, type GatewayPlugin, type HookpilotConfig,
} from '../../dist/index.js'

// A well-typed config is accepted, and the result is a Gateway.
expectType<Promise<Gateway>>(createGateway({ platforms: { webhook: { extra: { port: 8644, routes: { pr: { secret: 's', events: ['pull_request'] } } } } } }))

// Wrongly typed configs are refused by the compiler.
expectError(createGateway({ platforms: { webhook: { extra: { port: true } } } }))
expectError(createGateway({ platforms: { webhook: { extra: { routes: { pr: { events: 'pull_request' } } } } } }))
expectError(createGateway({ agent: { concurrency: [4] } }))
expectError(createGateway({ platforms: { webhook: { extra: { routez: {} } } } }))

// defineDeliveryTarget infers its argument types: no annotations needed.
const audit = defineDeliveryTarget({
  name: 'audit',
  async deliver(answer, ctx) {
    expectType<AgentAnswer>(answer)
    expectType<DeliveryContext>(ctx)
    expectType<string>(answer.text)
    expectType<number>(ctx.attempt)
  },
})
expectAssignable<GatewayPlugin>(audit)
expectError(defineDeliveryTarget({ name: 'bad', deliver: (_answer: number) => Promise.resolve() }))
expectError(defineDeliveryTarget({ name: 'sync', deliver: () => 'not a promise' }))

// A runner must return an AgentResult.
expectAssignable<GatewayPlugin>(defineAgentRunner({ name: 'r', run: async (input) => ({ ok: true, text: input.prompt }) }))
expectError(defineAgentRunner({ name: 'r', run: async () => 'text' }))

// parseConfig returns the validated shape with defaults filled in.
const config = parseConfig({})
expectType<HookpilotConfig>(config)
expectType<number>(config.platforms.webhook.extra.port)
expectType<string>(config.agent.runner)

// Option bags accept `| undefined`, so process.env values fit without a cast.
expectType<Promise<Gateway>>(createGateway({ platforms: { webhook: { extra: { secret: process.env['WEBHOOK_SECRET'], routes: { pr: { secret: process.env['PR_SECRET'] } } } } } }))
