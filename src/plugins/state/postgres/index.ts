/** `state.driver: postgres`: jobs, de-dup keys and groups in a PostgreSQL database that several instances share. */
export { postgresState, postgresStores, type PostgresStateOptions, type PostgresStores } from './postgres-state.js'
export { postgresStatePlugin } from './plugin.js'
