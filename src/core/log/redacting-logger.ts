/**
 * Every line the gateway logs passes through the secret set's redactor, whoever wrote it (the core, a built-in
 * or a plugin) and whatever it quotes (an agent's stderr, gh's, an error from a chat API): a secret that
 * reaches a message or a field is replaced before any logger sees it.
 */
import { mapStringFields } from './fields.js'
import type { LogFields, Logger } from '../types.js'

/** `log`, with `redact` applied to the message and to every string field of each line. */
export function redactingLogger(log: Logger, redact: (text: string) => string): Logger {
  const wrap = (write: Logger['info']) => (message: string, fields?: LogFields) => write(redact(message), fields && mapStringFields(fields, redact))
  return { debug: wrap(log.debug.bind(log)), info: wrap(log.info.bind(log)), warn: wrap(log.warn.bind(log)), error: wrap(log.error.bind(log)) }
}
