/**
 * Where a job is in its life, as a word: the kernel holds it (not jobs/) because the gateway's events name how a job
 * ended, and every folder may import the kernel.
 */

/**
 * Where a job is: waiting (`queued`, maybe not before a time), leased by a worker, or finished: `done` (its
 * answer was delivered), `skipped` (there was nothing to deliver: a silent output, or the target posted
 * nothing on purpose), `superseded` (a newer job of its concurrency group replaced it) or `failed`.
 */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'skipped' | 'superseded'

/** The states a job ends in. */
export type FinalState = Exclude<JobState, 'queued' | 'running'>
