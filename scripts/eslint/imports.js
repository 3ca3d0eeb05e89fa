/**
 * The relative imports of a source file, resolved to the files they name: what both local rules read. TypeScript's
 * own pre-processor finds them (`import`, `import type`, `export ... from`, `import()` and `import('...').T` in a
 * type), so a specifier in a comment or a string is not taken for one and every parser's files read alike.
 */
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

/**
 * @typedef {object} ResolvedImport
 * @property {string} specifier as written
 * @property {string} file the absolute path of the file it names
 * @property {number} start the offset of the specifier's string in the text, its opening quote
 * @property {number} end the offset just past its closing quote
 */

/**
 * The relative imports of `text` (the file at `file`) that name a file that exists. Type-only imports are included:
 * a type names a concept of the file that declares it, which is what the layer order and the cycle check are about.
 *
 * @param {string} file absolute path
 * @param {string} text
 * @returns {ResolvedImport[]}
 */
export function relativeImports(file, text) {
  const found = []
  // `pos` is where the string token starts (its quote); the specifier has no escapes in this project's imports.
  for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
    if (!ref.fileName.startsWith('./') && !ref.fileName.startsWith('../')) continue
    const target = resolveSpecifier(path.dirname(file), ref.fileName)
    if (target !== undefined) found.push({ specifier: ref.fileName, file: target, start: ref.pos, end: ref.pos + ref.fileName.length + 2 })
  }
  return found
}

/** ESM specifiers name the emitted `.js`; the source is the `.ts` beside it (NodeNext's rule). */
const SOURCE_EXTENSIONS = [['.js', '.ts'], ['.mjs', '.mts'], ['.js', '.tsx']]

/**
 * @param {string} dir
 * @param {string} specifier
 * @returns {string | undefined}
 */
function resolveSpecifier(dir, specifier) {
  const named = path.resolve(dir, specifier)
  const candidates = []
  for (const [emitted, source] of SOURCE_EXTENSIONS) {
    if (named.endsWith(emitted)) candidates.push(named.slice(0, -emitted.length) + source)
  }
  candidates.push(named, named + '.ts', path.join(named, 'index.ts'))
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile())
}
