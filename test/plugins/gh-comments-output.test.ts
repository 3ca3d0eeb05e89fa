/**
 * What the sticky-mode gh calls say when gh prints something that is not JSON (issue 38, item 16): the error
 * names gh and the step, not only JSON.parse's "Unexpected token". A real child process stands in for gh.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ghComments } from '../../src/plugins/targets/github-comment/gh-comments.js'

/** A "gh" that prints `text` whatever it is asked. */
function plainTextGh(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gh-plain-'))
  const path = join(dir, 'gh')
  writeFileSync(path, `#!${process.execPath}\nprocess.stdout.write(${JSON.stringify(text)})\n`)
  chmodSync(path, 0o755)
  return path
}

describe('gh answers that are not JSON', () => {
  it('listing the comments names gh, the step and what it printed', async () => {
    const api = ghComments({ ghPath: plainTextGh('hello from a stand-in gh\n'), repo: 'octo/repo', prNumber: '7', timeoutMs: 10_000, signal: new AbortController().signal })
    const error = await api.listPage(1, '<!-- hookpilot:pr -->').then(() => undefined, (e: unknown) => e)
    expect(String(error)).toContain('gh api (to list the comments, in sticky mode) printed a line that is not JSON ("hello from a stand-in gh")')
    expect(String(error)).not.toContain('Unexpected token')
  })
})
