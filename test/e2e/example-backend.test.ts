/**
 * The example backend of docs/plugins.md (examples/backends/table-backend.ts), built on hookpilot/backend-kit
 * as a plugin author would, passes the shipped state-backend contract: every case, those of a crashed or
 * replaced worker included, since which leases go back is the kit's crash recovery, not the backend's.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { stateBackendContract, type BackendOptions } from '../../src/testing/state-backend.js'
import { tableBackend } from '../../examples/backends/table-backend.js'

const folder = await mkdtemp(join(tmpdir(), 'hookpilot-table-'))
const paths = new WeakMap<StateBackend, string>()
let counter = 0
const at = (path: string, { keepDoneMs, ...options }: BackendOptions) => {
  // The suite says "not set" with undefined; the example's option is absent instead.
  const backend = tableBackend({ ...options, path, ...(keepDoneMs === undefined ? {} : { keepDoneMs }) })
  paths.set(backend, path)
  return backend
}

stateBackendContract('the example table backend', {
  notes: false,
  make: (options) => at(join(folder, `table-${++counter}.db`), options),
  reopen: (previous, options) => at(paths.get(previous) ?? '', options),
  peer: (first, options) => at(paths.get(first) ?? '', options),
})
