/**
 * The services the market client talks to. A file of its own because the transport (http.ts), the request budget
 * and its table of published limits (budget/) and the mock's limiter all name them: kept in http.ts, the budget
 * and the transport would import each other.
 */

/** The three services the client talks to. */
export type Service = 'gamma' | 'clob' | 'data'
