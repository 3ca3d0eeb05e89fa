/**
 * `hookpilot check --policy FILE`: checks a repository's policy file (`.hookpilot.yml`) the way the gateway reads
 * it from a pull request's base branch, before it is committed: every problem with its path, or what it sets.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { MAX_POLICY_BYTES } from '../core/config/route-policy.js'
import { issueLines, parsePolicy, type PolicyFile } from '../core/policy/policy-file.js'
import { UsageError } from './args.js'
import type { CliIO } from './io.js'

/** Checks the policy file at `file` (relative to the working directory); 0 when it is valid, 1 with every problem. */
export async function checkPolicy(file: string, io: CliIO): Promise<number> {
  let text: string
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(code === 'ENOENT' ? `no policy file at ${file}: give the path of a .hookpilot.yml` : `cannot read ${file}: ${String(err)}`)
  }
  const parsed = parsePolicy(text, MAX_POLICY_BYTES)
  if (!parsed.ok) {
    for (const line of issueLines(parsed.issues)) io.stderr.write(`${file}: ${line}\n`)
    io.stderr.write(`${file} is not a valid policy: a pull request would be reviewed with the gateway's settings, and told why (docs/policy.md).\n`)
    return 1
  }
  io.stdout.write(`${file} is a valid policy: ${summary(parsed.policy)}. The gateway's policy.allow decides which of these keys apply.\n`)
  return 0
}

/** What a policy sets, in one line. */
function summary(policy: PolicyFile): string {
  const parts: string[] = []
  const keys = (section: object | undefined) => Object.entries(section ?? {}).filter(([, value]) => value !== undefined).map(([key]) => key)
  if (keys(policy.filters).length > 0) parts.push(`filters (${keys(policy.filters).join(', ')})`)
  if (policy.instructions !== undefined && policy.instructions.length > 0) parts.push(`${policy.instructions.length} instruction${policy.instructions.length === 1 ? '' : 's'}`)
  if (keys(policy.settings).length > 0) parts.push(`settings (${keys(policy.settings).join(', ')})`)
  return parts.length === 0 ? 'it sets nothing' : parts.join(', ')
}
