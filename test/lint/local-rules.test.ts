/**
 * The project's two local ESLint rules (scripts/eslint/), run by ESLint's RuleTester on small trees written to a
 * temporary folder: both rules resolve imports to files that exist, and the cycle check reads the other files of
 * the tree from disk.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { RuleTester } from 'eslint'
import tseslint from 'typescript-eslint'
import { afterAll, describe, it } from 'vitest'
import { layerOrder } from '../../scripts/eslint/layer-order.js'
import { noCycle } from '../../scripts/eslint/no-cycle.js'

RuleTester.describe = describe
RuleTester.it = it
RuleTester.itOnly = it.only

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } })

const base = mkdtempSync(path.join(tmpdir(), 'hookpilot-lint-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

/** Writes `files` (path → text) under a fresh folder of `base`; returns the folder. */
function tree(name: string, files: Readonly<Record<string, string>>): string {
  const root = path.join(base, name)
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), text)
  }
  return root
}

describe('hookpilot/layer-order', () => {
  const core = tree('layers', {
    'types.ts': 'export type T = 1\n',
    'log/logger.ts': 'export const log = 1\n',
    'http/responses.ts': 'export const json = 1\n',
    'jobs/lifecycle/transitions.ts': 'export const edge = 1\n',
    'jobs/dispatcher.ts': 'export const dispatch = 1\n',
    'agents/watchdog.ts': 'export const watch = 1\n',
  })
  writeFileSync(path.join(base, 'util.ts'), 'export const u = 1\n')
  const layers = ['*.ts', 'log', 'jobs/lifecycle', 'http', 'jobs']
  const options = [{ root: core, layers }]
  const at = (file: string) => path.join(core, file)
  const order = `${core}/*.ts → log → jobs/lifecycle → http → jobs`
  const later = (from: string, to: string, specifier: string) => ({
    message: `${core}/${from} must not import ${core}/${to} (${specifier}): the folders of ${core} go ${order}, and a folder imports only from the folders before it.`,
  })

  tester.run('layer-order', layerOrder, {
    valid: [
      { name: 'a folder imports the kernel', filename: at('log/logger.ts'), options, code: "import type { T } from '../types.js'" },
      { name: 'a folder imports an earlier folder', filename: at('http/responses.ts'), options, code: "import { log } from '../log/logger.js'" },
      { name: 'a file imports its own folder', filename: at('http/flow.ts'), options, code: "import { json } from './responses.js'" },
      { name: 'a parent imports the subfolder listed before it', filename: at('jobs/dispatcher.ts'), options, code: "import { edge } from './lifecycle/transitions.js'" },
      { name: 'an import that leaves the root is not this rule’s', filename: at('log/logger.ts'), options, code: "import { u } from '../../util.js'" },
      { name: 'a file outside the root is not checked', filename: path.join(base, 'util.ts'), options, code: `import { json } from './layers/http/responses.js'` },
    ],
    invalid: [
      {
        name: 'a folder imports a later folder',
        filename: at('log/logger.ts'), options,
        code: "import { json } from '../http/responses.js'",
        errors: [{ ...later('log', 'http', '../http/responses.js'), line: 1, column: 22, endColumn: 44 }],
      },
      {
        name: 'a type-only import counts',
        filename: at('http/responses.ts'), options,
        code: "export const json = 1\nimport type { Dispatch } from '../jobs/dispatcher.js'",
        errors: [{ ...later('http', 'jobs', '../jobs/dispatcher.js'), line: 2 }],
      },
      {
        name: 'the kernel imports a folder',
        filename: at('events.ts'), options,
        code: "export { log } from './log/logger.js'",
        errors: [later('*.ts', 'log', './log/logger.js')],
      },
      {
        name: 'a subfolder listed on its own imports its later parent',
        filename: at('jobs/lifecycle/transitions.ts'), options,
        code: "const d = await import('../dispatcher.js')",
        errors: [later('jobs/lifecycle', 'jobs', '../dispatcher.js')],
      },
      {
        name: 'a folder in no entry',
        filename: at('agents/watchdog.ts'), options,
        code: "import { log } from '../log/logger.js'",
        errors: [{ message: `${core}/agents is in no entry of the order of ${core}: add it to scripts/eslint/core-layers.js and docs/architecture.md.` }],
      },
    ],
  })
})

describe('hookpilot/no-cycle', () => {
  const root = tree('cycles', {
    'a.ts': "import { b } from './b.js'\nexport const a = b\n",
    'b.ts': "import { c } from './deep/c.js'\nexport const b = c\n",
    'deep/c.ts': "import type { A } from '../a.js'\nexport const c = 1\nexport type C = A\n",
    'd.ts': "import { a } from './a.js'\nexport const d = a\n",
  })
  const options = [{ root }]
  const at = (file: string) => path.join(root, file)
  const shown = (file: string) => path.relative(process.cwd(), at(file))

  tester.run('no-cycle', noCycle, {
    valid: [
      { name: 'a file that nothing imports back', filename: at('d.ts'), options, code: "import { a } from './a.js'" },
      { name: 'the linted text wins over the file on disk', filename: at('a.ts'), options, code: 'export const a = 1' },
      { name: 'a file outside the root is not checked', filename: path.join(base, 'outside.ts'), options, code: "import { a } from './cycles/a.js'" },
    ],
    invalid: [
      {
        name: 'a cycle closed by a type-only import, reported with its shortest path',
        filename: at('a.ts'), options,
        code: "import { b } from './b.js'\nexport const a = b",
        errors: [{
          message: `Import cycle: ${[shown('a.ts'), shown('b.ts'), shown('deep/c.ts'), shown('a.ts')].join(' → ')}. Move what both files need to a file that imports neither.`,
          line: 1, column: 19,
        }],
      },
      {
        name: 'the same cycle seen from its type-only end',
        filename: at('deep/c.ts'), options,
        code: "import type { A } from '../a.js'\nexport type C = A",
        errors: [{ message: `Import cycle: ${[shown('deep/c.ts'), shown('a.ts'), shown('b.ts'), shown('deep/c.ts')].join(' → ')}. Move what both files need to a file that imports neither.` }],
      },
      {
        name: 'a file that imports itself',
        filename: at('d.ts'), options,
        code: "export * from './d.js'",
        errors: [{ message: `Import cycle: ${shown('d.ts')} → ${shown('d.ts')}. Move what both files need to a file that imports neither.` }],
      },
    ],
  })
})
