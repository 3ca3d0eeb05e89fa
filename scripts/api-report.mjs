/**
 * The API report: what each entry point of package.json's `exports` publishes, as API Extractor reports it from
 * the compiled declarations (api/index.api.md for `hookpilot`, api/plugins/sqlite-state.api.md for
 * `hookpilot/plugins/sqlite-state`, ...). Checked in beside the code, it turns any change to the public surface
 * into a diff a reviewer sees. `npm run api:update` rewrites it from dist/ (after a build); test/package/api-report.test.ts
 * fails when it is out of date.
 *
 * API Extractor takes one entry point per run, so every entry shares one TypeScript program (CompilerState with
 * all entries) and is analysed with the project's own TypeScript: the 22 entries take a few seconds together.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import apiExtractor from '@microsoft/api-extractor'

const { CompilerState, Extractor, ExtractorConfig } = apiExtractor

/** The repository's root folder. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** Where the reports are kept. */
export const API_DIR = join(ROOT, 'api')

/**
 * @typedef {object} EntryPoint
 * @property {string} specifier what an importer writes: `hookpilot`, `hookpilot/testing`
 * @property {string} report the report's path under api/: `index.api.md`, `plugins/sqlite-state.api.md`
 * @property {string} types the entry's compiled declarations (absolute)
 */

/**
 * Every entry point of the exports map (`./package.json` aside), in its order.
 * @param {string} [root]
 * @returns {EntryPoint[]}
 */
export function entryPoints(root = ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target !== null && typeof target.types === 'string')
    .map(([key, target]) => ({
      specifier: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`,
      report: key === '.' ? 'index.api.md' : `${key.slice(2)}.api.md`,
      types: join(root, target.types),
    }))
}

/**
 * The report of every entry point, generated from dist/, by its path under api/.
 * @param {string} [root]
 * @returns {Map<string, string>}
 */
export function generateReports(root = ROOT) {
  const entries = entryPoints(root)
  const missing = entries.filter((e) => !exists(e.types))
  if (missing.length > 0) throw new Error(`no compiled declarations for ${missing.map((e) => e.specifier).join(', ')}: run npm run build first`)
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'))
  // The project's compiler settings, less what is about emitting: the program reads dist/, it writes nothing.
  const { outDir: _outDir, rootDir: _rootDir, sourceMap: _sourceMap, declaration: _declaration, ...compilerOptions } = tsconfig.compilerOptions
  const typescriptCompilerFolder = dirname(createRequire(join(root, 'package.json')).resolve('typescript/package.json'))
  const work = mkdtempSync(join(tmpdir(), 'hookpilot-api-'))
  try {
    const configs = entries.map((entry, i) => ExtractorConfig.prepare({
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: entry.types,
        compiler: { overrideTsconfig: { compilerOptions: { ...compilerOptions, noEmit: true }, files: entries.map((e) => e.types) } },
        apiReport: { enabled: true, reportFileName: `entry-${i}`, reportFolder: work, reportTempFolder: work },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        newlineKind: 'lf',
        messages: {
          // The report is the declarations; advice about release tags, links and forgotten exports stays out of it.
          compilerMessageReporting: { default: { logLevel: 'error' } },
          extractorMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
          tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
        },
      },
      configObjectFullPath: join(root, 'api-extractor.json'),
      packageJsonFullPath: join(root, 'package.json'),
    }))
    const first = configs[0]
    if (first === undefined) return new Map()
    const compilerState = CompilerState.create(first, { additionalEntryPoints: entries.map((e) => e.types), typescriptCompilerFolder })
    const reports = new Map()
    entries.forEach((entry, i) => {
      const errors = []
      const result = Extractor.invoke(configs[i], {
        localBuild: true,
        compilerState,
        typescriptCompilerFolder,
        messageCallback(message) {
          if (message.logLevel === 'error') errors.push(message.formattedText ?? message.text)
          message.handled = true
        },
      })
      if (!result.succeeded || errors.length > 0) throw new Error(`API Extractor failed on ${entry.specifier}:\n${errors.join('\n')}`)
      const text = readFileSync(join(work, `entry-${i}.api.md`), 'utf8')
      // API Extractor names the package; a reader of api/plugins/telegram.api.md wants the entry point.
      reports.set(entry.report, text.replace(/^## API Report File for "[^"]*"/, `## API Report File for "${entry.specifier}"`))
    })
    return reports
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * The reports kept under api/, by their path there.
 * @param {string} [dir]
 * @returns {Map<string, string>}
 */
export function keptReports(dir = API_DIR) {
  const reports = new Map()
  if (!exists(dir)) return reports
  for (const name of readdirSync(dir, { recursive: true })) {
    const file = String(name)
    if (file.endsWith('.api.md')) reports.set(file.split('\\').join('/'), readFileSync(join(dir, file), 'utf8'))
  }
  return reports
}

/**
 * What differs between the kept and the generated reports, for a reader: each changed file as a line diff with
 * three lines of context, each missing or stale file named. Empty when they agree.
 * @param {Map<string, string>} kept
 * @param {Map<string, string>} generated
 * @returns {string}
 */
export function describeDifferences(kept, generated) {
  const out = []
  for (const [file, text] of generated) {
    const before = kept.get(file)
    if (before === undefined) out.push(`api/${file} is missing (a new entry point):\n${text}`)
    else if (before !== text) out.push(`api/${file} changed:\n${lineDiff(before, text)}`)
  }
  for (const file of kept.keys()) if (!generated.has(file)) out.push(`api/${file} reports an entry point package.json no longer exports`)
  return out.join('\n\n')
}

/**
 * A unified-style diff of two texts by lines (`-` kept, `+` generated), with `context` lines around each change.
 * @param {string} a
 * @param {string} b
 * @returns {string}
 */
export function lineDiff(a, b, context = 3) {
  const x = a.split('\n')
  const y = b.split('\n')
  // Longest common subsequence, suffix table: the reports are a few hundred lines, so n*m is small.
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1))
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1])
  }
  /** @type {{ op: ' ' | '-' | '+', line: string, at: number }[]} */
  const ops = []
  let i = 0
  let j = 0
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) ops.push({ op: ' ', line: x[i++], at: j++ })
    // Removals first, so a changed line reads as its old form, then its new one.
    else if (i < x.length && (j === y.length || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ op: '-', line: x[i++], at: j })
    else ops.push({ op: '+', line: y[j], at: j++ })
  }
  const shown = new Set()
  ops.forEach((o, k) => {
    if (o.op === ' ') return
    for (let c = Math.max(0, k - context); c <= Math.min(ops.length - 1, k + context); c++) shown.add(c)
  })
  const lines = []
  let previous = -2
  for (let k = 0; k < ops.length; k++) {
    if (!shown.has(k)) continue
    if (k !== previous + 1) lines.push(`@@ line ${ops[k].at + 1} @@`)
    lines.push(`${ops[k].op} ${ops[k].line}`)
    previous = k
  }
  return lines.join('\n')
}

/**
 * Writes the generated reports under api/ and removes the ones of entry points that are gone.
 * @param {Map<string, string>} reports
 * @param {string} [dir]
 */
export function writeReports(reports, dir = API_DIR) {
  for (const file of keptReports(dir).keys()) if (!reports.has(file)) rmSync(join(dir, file))
  for (const [file, text] of reports) {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), text)
  }
}

function exists(path) {
  try {
    readFileSync(path)
    return true
  } catch {
    try {
      readdirSync(path)
      return true
    } catch {
      return false
    }
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const kept = keptReports()
  const generated = generateReports()
  const changes = describeDifferences(kept, generated)
  writeReports(generated)
  console.log(changes === '' ? `api/: ${generated.size} reports, unchanged` : `api/ updated (${relative(process.cwd(), API_DIR) || '.'}):\n\n${changes}`)
}
