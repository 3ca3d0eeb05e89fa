/**
 * `hookpilot/layer-order`: the folders of one root (src/core) are listed first to last, and a file may import from
 * its own folder and the folders before it, never from one after it. The list is the rule's option, declared once
 * in scripts/eslint/core-layers.js; a folder in no entry is reported, so a new folder cannot slip past the order.
 */
import path from 'node:path'
import { relativeImports } from './imports.js'

/** The entry for the files directly in the root. */
const ROOT_FILES = '*.ts'

/** @type {import('eslint').Rule.RuleModule} */
export const layerOrder = {
  meta: {
    type: 'problem',
    docs: { description: "Refuses an import from a folder to a later folder of the root's declared order" },
    schema: [{
      type: 'object',
      properties: {
        root: { type: 'string' },
        layers: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true },
      },
      required: ['root', 'layers'],
      additionalProperties: false,
    }],
    messages: {
      later: '{{from}} must not import {{to}} ({{specifier}}): the folders of {{root}} go {{order}}, and a folder imports only from the folders before it.',
      unlisted: '{{folder}} is in no entry of the order of {{root}}: add it to scripts/eslint/core-layers.js and docs/architecture.md.',
    },
  },
  create(context) {
    const { root, layers } = context.options[0]
    const rootDir = path.resolve(context.cwd, root)
    const file = context.physicalFilename
    const own = layerOf(rootDir, layers, file)
    if (own === undefined) return {}
    const order = layers.map((layer) => (layer === ROOT_FILES ? `${root}/${ROOT_FILES}` : layer)).join(' → ')
    const name = (layer) => `${root}/${layer}`
    return {
      Program(node) {
        if (own.layer === undefined) {
          context.report({ node, messageId: 'unlisted', data: { folder: name(own.folder), root } })
          return
        }
        for (const ref of relativeImports(file, context.sourceCode.text)) {
          const target = layerOf(rootDir, layers, ref.file)
          if (target?.layer === undefined) continue // outside the root, or a folder reported in its own files
          if (layers.indexOf(target.layer) <= layers.indexOf(own.layer)) continue
          const start = context.sourceCode.getLocFromIndex(ref.start)
          const end = context.sourceCode.getLocFromIndex(ref.end)
          context.report({
            loc: { start, end },
            messageId: 'later',
            data: { from: name(own.layer), to: name(target.layer), specifier: ref.specifier, root, order },
          })
        }
      },
    }
  },
}

/**
 * The entry `file` belongs to: the longest entry its folder (relative to the root) equals or starts with, or
 * {@link ROOT_FILES} for a file directly in the root. `undefined` for a file outside the root; `layer: undefined` for
 * a folder in no entry.
 *
 * @param {string} rootDir
 * @param {readonly string[]} layers
 * @param {string} file
 * @returns {{ folder: string, layer: string | undefined } | undefined}
 */
export function layerOf(rootDir, layers, file) {
  const relative = path.relative(rootDir, path.dirname(file)).split(path.sep).join('/')
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined
  if (relative === '') return { folder: ROOT_FILES, layer: layers.includes(ROOT_FILES) ? ROOT_FILES : undefined }
  let best
  for (const layer of layers) {
    if (layer === ROOT_FILES) continue
    if ((relative === layer || relative.startsWith(layer + '/')) && (best === undefined || layer.length > best.length)) best = layer
  }
  return { folder: relative, layer: best }
}
