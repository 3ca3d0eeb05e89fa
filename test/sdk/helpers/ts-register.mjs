// `node --import ./test/sdk/helpers/ts-register.mjs script.ts`: runs TypeScript through ts-hooks.mjs.
import { register } from 'node:module'

register('./ts-hooks.mjs', import.meta.url)
