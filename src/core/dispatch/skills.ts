/**
 * Skills: `<skills_dir>/<name>/SKILL.md`, put before the prompt. Only the first listed skill that exists is
 * loaded: the list is an order of preference (a repository's own skill, then a general one), and the prompt
 * carries one skill's instructions, never two that disagree. Names cannot leave the skills folder (the schema
 * refuses `/`, `\` and `..`).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../types.js'

/** The text of the first skill found, or undefined when none of `names` exists. */
export async function loadFirstSkill(
  skillsDir: string,
  names: readonly string[],
  log: Logger,
  fields: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  for (const name of names) {
    try {
      return await readFile(join(skillsDir, name, 'SKILL.md'), 'utf8')
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : String(err)
      log.warn('skill not loaded', { ...fields, skill: name, dir: skillsDir, reason })
    }
  }
  return undefined
}
