import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd'
import {
  definePlugin, v,
  type Endpoint, type GatewayEventMap, type GatewayEvents, type GatewayPlugin, type ObserveContext, type PluginDefinition,
  type SecretPath, type SetupContext,
} from '../../dist/index.js'

const options = v.object({
  file: v.string(),
  token: v.optional(v.string()),
  tokens: v.optional(v.array(v.string())),
  retries: v.optional(v.number(), 3),
  auth: v.object({ user: v.string(), password: v.string() }),
})
type Options = v.InferOutput<typeof options>

// setup's options are the schema's output (defaults applied: `retries` is a number, never undefined).
const audit = definePlugin({
  name: 'audit',
  options,
  secrets: ['token', 'tokens', 'auth.password'],
  setup(opts, ctx) {
    expectType<Options>(opts)
    expectType<string>(opts.file)
    expectType<string | undefined>(opts.token)
    expectType<number>(opts.retries)
    expectType<SetupContext>(ctx)
    return { name: 'audit' }
  },
})

// The return type: a definition of those options, which createGateway and loadConfig take.
expectType<PluginDefinition<Options>>(audit)
expectAssignable<PluginDefinition>(audit)
expectType<readonly string[]>(audit.secrets)
expectType<(options: Options, ctx: SetupContext) => GatewayPlugin | Promise<GatewayPlugin>>(audit.setup)

// A secret must name an option of the schema: a typo does not compile...
expectError(definePlugin({ name: 'a', options, secrets: ['tokn'], setup: () => ({ name: 'a' }) }))
expectError(definePlugin({ name: 'a', options, secrets: ['auth.pasword'], setup: () => ({ name: 'a' }) }))
// ...nor does an option that cannot hold a secret (a number, a group of options).
expectError(definePlugin({ name: 'a', options, secrets: ['retries'], setup: () => ({ name: 'a' }) }))
expectError(definePlugin({ name: 'a', options, secrets: ['auth'], setup: () => ({ name: 'a' }) }))

// SecretPath: string (or string list) options, nested ones dotted; any key where the type does not say.
expectType<'file' | 'token' | 'tokens' | 'auth.user' | 'auth.password'>({} as SecretPath<Options>)
expectType<string>({} as SecretPath<Record<string, unknown>>)
expectType<never>({} as SecretPath<{ count: number }>)

// A plugin without options gets an empty-ish record. One plugin form: a plain plugin object is not a definition.
definePlugin({ name: 'bare', setup: (opts) => (expectType<Record<string, unknown>>(opts), { name: 'bare' }) })
expectError(definePlugin({ name: 'plain', deliveryTargets: [] }))
expectNotAssignable<PluginDefinition>({ name: 'plain', deliveryTargets: [] })

// What observe and endpoints take can be named from the root.
const observer: GatewayPlugin = {
  name: 'watch',
  observe(events: GatewayEvents, ctx: ObserveContext) {
    events.on('delivery', (event) => expectType<GatewayEventMap['delivery']>(event))
    expectType<ObserveContext['state']>(ctx.state)
  },
  endpoints: [{ path: '/x', handle: async () => ({ status: 200, headers: {}, body: '' }) } satisfies Endpoint],
}
expectAssignable<GatewayPlugin>(observer)
expectError(definePlugin({ name: 'w', setup: () => ({ name: 'w', observe: (events: GatewayEvents) => events.on('nope', () => {}) }) }))
