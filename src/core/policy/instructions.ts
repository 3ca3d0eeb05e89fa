/**
 * Path-scoped instructions: each entry of a policy's `instructions:` names path globs and the text the agent is
 * told about them. For each changed file the nearest entry wins, as in a cascade of per-folder files: the one whose
 * glob's fixed folder is deepest (`src/db/**` over `src/**` over `**`), the later one on a tie. The winners' texts,
 * once each and in the file's order, are `{review.instructions}`.
 */
import { pathMatcher } from './glob.js'
import type { PolicyInstruction } from './policy-file.js'

/** How deep a glob's fixed folders go: `src/db/**` is 2, `*.ts` and `**` are 0. */
function depthOf(glob: string): number {
  const fixed = glob.replace(/^\//, '').split('/').slice(0, -1)
  let depth = 0
  for (const part of fixed) {
    if (/[*?]/.test(part)) break
    depth++
  }
  return depth
}

/** The instructions for a pull request that changes `paths`: the nearest entry's text per file, joined; '' when none. */
export function instructionsFor(entries: readonly PolicyInstruction[] | undefined, paths: readonly string[]): string {
  if (entries === undefined || entries.length === 0) return ''
  const compiled = entries.map((entry, index) => ({ index, entry, matches: pathMatcher(entry.paths), depth: Math.max(...entry.paths.map(depthOf)) }))
  const chosen = new Set<number>()
  for (const path of paths) {
    let best: (typeof compiled)[number] | undefined
    for (const candidate of compiled) {
      if (!candidate.matches(path)) continue
      if (best === undefined || candidate.depth >= best.depth) best = candidate
    }
    if (best !== undefined) chosen.add(best.index)
  }
  return compiled
    .filter((c) => chosen.has(c.index))
    .map((c) => `For ${c.entry.paths.join(', ')}:\n${c.entry.text.trim()}`)
    .join('\n\n')
}
