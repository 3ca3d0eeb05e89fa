// `node --import ./no-msw.mjs`: a process in which msw cannot be found, as for a user who never installed it.
import { register } from 'node:module'

register(
  'data:text/javascript,' +
    encodeURIComponent(`export async function resolve(specifier, context, next) {
      if (specifier === 'msw' || specifier.startsWith('msw/')) throw Object.assign(new Error('Cannot find package msw'), { code: 'ERR_MODULE_NOT_FOUND' })
      return next(specifier, context)
    }`),
)
