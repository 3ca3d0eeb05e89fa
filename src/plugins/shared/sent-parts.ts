/**
 * Remembers how many parts of a split answer a target has already posted, so that a retry after a failure
 * half-way resumes where it stopped instead of posting the first parts again.
 */

/** Counts posted parts per answer (key: route and delivery id). */
export interface SentParts {
  /** How many parts of this answer were posted already (0 for a new answer). */
  count(key: string): number
  /** Records that the first `n` parts of this answer are posted. */
  record(key: string, n: number): void
  /** Forgets an answer whose every part is posted. */
  finish(key: string): void
}

/**
 * An in-memory {@link SentParts}. Answers that never finish (a permanent failure after some parts) are
 * dropped oldest first past `maxAnswers`, so memory stays bounded.
 */
export function sentParts(maxAnswers = 10_000): SentParts {
  const posted = new Map<string, number>()
  return {
    count: (key) => posted.get(key) ?? 0,
    record(key, n) {
      posted.delete(key) // re-insert, so the map's order is least recently used first
      posted.set(key, n)
      for (const oldest of posted.keys()) {
        if (posted.size <= maxAnswers) break
        posted.delete(oldest)
      }
    },
    finish: (key) => void posted.delete(key),
  }
}

/** The key of one answer on one route: a delivery id may reach several routes. */
export function answerKey(route: string, deliveryId: string): string {
  return `${route}\u0000${deliveryId}`
}
