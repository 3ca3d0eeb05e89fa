/** Errors about the state database, named by the key that chose it. */
import { GatewayError } from '../../../core/errors.js'

const WHAT_TO_DO = 'Point state.path at a file this user can write, or use state.driver: memory (nothing kept).'

/** A state error naming the file, the problem, and what to change (by default: another path). */
export function stateError(path: string, problem: string, cause?: unknown, whatToDo = WHAT_TO_DO): GatewayError {
  return new GatewayError('ERR_STATE', `state.path ${path}: ${problem}. ${whatToDo}`, { cause })
}
