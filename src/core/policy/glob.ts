/**
 * The globs a policy file writes for paths and branches: `*` (any characters but `/`), `**` (any folders, none
 * included), `?` (one character but `/`), and nothing else (no braces, no classes), so a repository's pattern
 * means the same here as in its reader's head. Matching is over the whole text.
 */

/** The expression of a glob, compiled once per pattern. */
export function globToRegExp(glob: string): RegExp {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? ''
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is any folders (none included); a trailing `**` is anything below.
      const slash = glob[i + 2] === '/'
      source += slash ? '(?:[^/]*/)*' : '.*'
      i += slash ? 2 : 1
    } else if (c === '*') {
      source += '[^/]*'
    } else if (c === '?') {
      source += '[^/]'
    } else {
      source += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')
    }
  }
  return new RegExp(`^${source}$`)
}

/**
 * A test of text against globs: a pattern without a `/` (`*.lock`) matches a path's last part in any folder, as
 * `.gitignore` reads it; one with a `/` matches from the repository's root.
 */
export function pathMatcher(globs: readonly string[]): (path: string) => boolean {
  const tests = globs.map((glob) => {
    const rooted = glob.includes('/') ? glob.replace(/^\//, '') : `**/${glob}`
    return globToRegExp(rooted)
  })
  return (path) => tests.some((test) => test.test(path))
}

/** A test of a name (a branch, a login) against globs matched whole: `release/*`, `*[bot]`. */
export function nameMatcher(globs: readonly string[]): (name: string) => boolean {
  const tests = globs.map(globToRegExp)
  return (name) => tests.some((test) => test.test(name))
}
