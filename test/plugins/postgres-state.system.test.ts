/**
 * The PostgreSQL backend against a PostgreSQL this file starts (initdb into a temporary folder, a free port):
 * the shared state-backend contract, restarts and a second instance over one schema included.
 */
import type { StateBackend } from '../../src/core/jobs/state-backend.js'
import { postgresState } from '../../src/plugins/state/postgres/postgres-state.js'
import { stateBackendContract, type BackendOptions } from '../../src/testing/state-backend.js'
import { usePostgres } from '../fixtures/postgres.js'

const server = usePostgres()

let counter = 0
const schemas = new WeakMap<StateBackend, string>()
const backendIn = (schema: string, options: BackendOptions) => {
  const backend = postgresState({ url: server.url, schema, poolMax: 4, ...options })
  schemas.set(backend, schema)
  return backend
}

stateBackendContract('postgresState', {
  make: (options) => backendIn(`contract${++counter}`, options),
  reopen: (previous, options) => backendIn(schemas.get(previous) ?? '', options),
  peer: (first, options) => backendIn(schemas.get(first) ?? '', options),
})
