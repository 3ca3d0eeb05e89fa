/**
 * The order of src/core's folders, declared once: the linter's `hookpilot/layer-order` rule (eslint.config.js) refuses
 * an import from a folder to a later one, and test/lint/architecture-order.test.ts keeps docs/architecture.md's
 * written order equal to this list.
 *
 * Each entry is a folder under src/core (a subfolder such as `jobs/lifecycle` may be an entry of its own: a file
 * belongs to the longest entry its folder starts with), or `*.ts` for the kernel, the files directly in src/core.
 * A folder that is in no entry is reported, so a new folder is added here (and in docs/architecture.md) or the linter
 * says so.
 */

/** The root the entries are relative to. */
export const CORE_ROOT = 'src/core'

/** The kernel's entry: the files directly in {@link CORE_ROOT}. */
export const KERNEL = '*.ts'

/** First to last: a folder may import the folders before it, never one after it. */
export const CORE_LAYERS = Object.freeze([
  KERNEL,
  'log',
  'secrets',
  'review',
  'agents',
  'jobs/lifecycle',
  'jobs/views',
  'jobs/worker',
  'config',
  'routes',
  'policy',
  'pipeline',
  'dispatch',
  'http',
  'plugin-api',
  'agents/setup',
  'gateway',
])
