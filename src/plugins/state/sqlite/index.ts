/** `state.driver: sqlite` (the default): jobs and their de-dup keys in one file, crash safe. */
export { sqliteState, type SqliteStateOptions } from './sqlite-state.js'
export type { SyncMode } from './open.js'
export { sqliteStatePlugin } from './plugin.js'
