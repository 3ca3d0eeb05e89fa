// Module hooks that let plain `node` run the TypeScript sources and examples without a build: `.ts` files are
// transpiled with the project's TypeScript, `./x.js` finds `./x.ts`, and `hookpilot/sdk[/mock]` maps to src/.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = new URL('../../../', import.meta.url)
const ALIASES = {
  'hookpilot/sdk': new URL('src/sdk/index.ts', root).href,
  'hookpilot/sdk/mock': new URL('src/sdk/mock/index.ts', root).href,
}

export async function resolve(specifier, context, next) {
  if (specifier in ALIASES) return { url: ALIASES[specifier], shortCircuit: true }
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const candidate = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL)
    if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true }
  }
  return next(specifier, context)
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context)
  const source = readFileSync(fileURLToPath(url), 'utf8')
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  })
  return { format: 'module', source: outputText, shortCircuit: true }
}
