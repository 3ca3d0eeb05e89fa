/**
 * The one "did you mean": the known word a mistyped one is closest to. The config's unknown keys, the CLI's
 * commands and flags, a plugin's options and a program not found on PATH all ask it. Lives in `src/util/`, which
 * imports nothing, so the running of agents (`src/core/agents/`, below the config in the order of the core's
 * folders) can use it as well as the config.
 */

/** The known word closest to `word`, when it is close enough to be a typo of it. */
export function suggest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  const lower = word.toLowerCase()
  for (const candidate of known) {
    const d = distance(lower, candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  // One edit per three letters: "secrett" → "secret", "evnets" → "events"; not "port" → "prompt".
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}
