/**
 * `hookpilot/no-cycle`: no file of the root (src/) imports, through any chain of relative imports, a file that
 * imports it back. Type-only imports count: with verbatimModuleSyntax they are gone at run time, so such a cycle
 * cannot run code half-initialised, but the two files still cannot be read, moved or split apart, and it was a
 * type-only import that closed the logger's cycle.
 *
 * The linted file's imports are read from its text as it is now; every other file's from disk, once per process
 * and root (a lint run; an editor's server sees another file's change when it restarts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { relativeImports } from './imports.js'

/** Source files the graph holds. */
const SOURCE = /\.m?tsx?$/

/** @type {import('eslint').Rule.RuleModule} */
export const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuses an import that closes a cycle of relative imports between files of the root' },
    schema: [{
      type: 'object',
      properties: { root: { type: 'string' } },
      required: ['root'],
      additionalProperties: false,
    }],
    messages: {
      cycle: 'Import cycle: {{path}}. Move what both files need to a file that imports neither.',
    },
  },
  create(context) {
    const rootDir = path.resolve(context.cwd, context.options[0].root)
    const file = context.physicalFilename
    if (path.relative(rootDir, file).startsWith('..')) return {}
    return {
      Program() {
        const reaching = filesReaching(file, importersByFile(rootDir))
        const shown = (f) => path.relative(context.cwd, f).split(path.sep).join('/')
        for (const ref of relativeImports(file, context.sourceCode.text)) {
          if (!reaching.has(ref.file) && ref.file !== file) continue
          const chain = [file, ref.file]
          for (let at = ref.file; at !== file;) chain.push((at = reaching.get(at)))
          context.report({
            loc: {
              start: context.sourceCode.getLocFromIndex(ref.start),
              end: context.sourceCode.getLocFromIndex(ref.end),
            },
            messageId: 'cycle',
            data: { path: chain.map(shown).join(' → ') },
          })
        }
      },
    }
  },
}

/**
 * Every file with a chain of imports to `file`, each mapped to the next file of its shortest chain (a breadth-first
 * walk of the importers, backwards from `file`). `file`'s own imports on disk are never followed: a chain that
 * passes through it is a cycle of its own, and its imports as linted are the text's.
 *
 * @param {string} file
 * @param {ReadonlyMap<string, ReadonlySet<string>>} importers
 * @returns {Map<string, string>}
 */
function filesReaching(file, importers) {
  const next = new Map()
  const queue = [file]
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]
    for (const importer of importers.get(at) ?? []) {
      if (importer === file || next.has(importer)) continue
      next.set(importer, at)
      queue.push(importer)
    }
  }
  return next
}

/** @type {Map<string, Map<string, Set<string>>>} the importers of each file, by root */
const graphs = new Map()

/**
 * The files under `rootDir` that import each file, read from disk once per process.
 *
 * @param {string} rootDir
 * @returns {Map<string, Set<string>>}
 */
function importersByFile(rootDir) {
  let importers = graphs.get(rootDir)
  if (importers !== undefined) return importers
  importers = new Map()
  for (const entry of readdirSync(rootDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !SOURCE.test(entry.name)) continue
    const importer = path.join(entry.parentPath, entry.name)
    for (const ref of relativeImports(importer, readFileSync(importer, 'utf8'))) {
      let set = importers.get(ref.file)
      if (set === undefined) importers.set(ref.file, (set = new Set()))
      set.add(importer)
    }
  }
  graphs.set(rootDir, importers)
  return importers
}
