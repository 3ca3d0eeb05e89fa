/**
 * The linter `npm test` runs. src/ is linted with type information (a promise nobody awaits, a promise passed
 * where a plain callback is expected, an unsafe `any`: the bugs the compiler lets through); test/, bench/ and
 * examples/ get the syntax-only rules, which need no type checker and cost a fraction of the time.
 */
import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import { CORE_LAYERS, CORE_ROOT } from './scripts/eslint/core-layers.js'
import { hookpilotRules } from './scripts/eslint/plugin.js'

/** A name starting with `_` is unused on purpose (a parameter kept for its position, a skipped tuple slot). */
const unusedVars = ['error', {
  argsIgnorePattern: '^_',
  varsIgnorePattern: '^_',
  caughtErrorsIgnorePattern: '^_',
  destructuredArrayIgnorePattern: '^_',
  ignoreRestSiblings: true,
}]

export default defineConfig(
  globalIgnores(['dist/', 'coverage/', '.hookpilot/', '**/node_modules/']),
  {
    files: ['**/*.{ts,js,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
      // A promise nobody awaits loses its rejection; `void` marks the few started on purpose (each says why).
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a plain one is expected (an event handler, a forEach) drops its rejection.
      '@typescript-eslint/no-misused-promises': 'error',
      // Rejecting with `signal.reason` (typed any) is how an abortable wait reports its abort; a string or a
      // plain object is still refused.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', {
        allowThrowingAny: true, allowThrowingUnknown: true,
      }],
      // Off: an `async` method of a Promise-returning interface (the memory backend, the views, the echo
      // runner) turns a thrown error into a rejection, as callers expect; adding an `await` would be noise.
      '@typescript-eslint/require-await': 'off',
      // Off: the interfaces here are implemented by closures and object literals that never use `this`, and
      // passing `secrets.redact` or `spec.setup` along is the style; each of its findings was of that kind.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  // The folders of src/core import only the folders before them, and no file of src/ takes part in an import cycle
  // (type-only imports included: see scripts/eslint/no-cycle.js).
  {
    files: ['src/**/*.ts'],
    plugins: { hookpilot: hookpilotRules },
    rules: {
      'hookpilot/no-cycle': ['error', { root: 'src' }],
      'hookpilot/layer-order': ['error', { root: CORE_ROOT, layers: [...CORE_LAYERS] }],
    },
  },
  // The market SDK is a product of its own (`hookpilot/sdk`): nothing in it leaves src/sdk/ except for src/util/,
  // and src/util/ (what every part may import) imports nothing of the project's. One block per folder depth, since
  // the number of `../` that leaves the folder depends on it.
  ...[1, 2, 3].map((depth) => ({
    files: [`src/sdk/${'*/'.repeat(depth - 1)}*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [{
      regex: `^(\\.\\./){${depth}}(?!util/)`,
      message: 'src/sdk imports nothing from the gateway; what both need lives in src/util/.',
    }] }] },
  })),
  {
    files: ['src/util/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{
      regex: '^\\.\\./',
      message: 'src/util/ imports nothing outside itself: the SDK and the gateway both import it.',
    }] }] },
  },
  {
    files: ['{test,bench,examples}/**/*.{ts,mts}'],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
    },
  },
  {
    files: ['{test,bench,examples,scripts}/**/*.{js,mjs}'],
    rules: {
      'no-unused-vars': unusedVars,
    },
  },
)
