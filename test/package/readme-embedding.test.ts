/**
 * The README's "In your own server" snippet does what docs/embedding.md asks of an embedding (issue 38, item
 * 16): state resolved from the config's folder (`baseDir`), the server's timeouts set, and a loopback listener
 * rather than every interface.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as hookpilot from '../../src/index.js'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const snippet = /In your own server:\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''

describe("the README's embedding snippet", () => {
  it('passes baseDir from the config file, sets the timeouts docs/embedding.md asks for, and listens on loopback', () => {
    expect(snippet).toContain("baseDir: dirname(resolve('config.yaml'))")
    const embedding = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8')
    for (const setting of ['server.headersTimeout = 10_000', 'server.requestTimeout = 30_000', "server.on('clientError', gateway.clientError)"]) {
      expect(embedding).toContain(setting)
      expect(snippet).toContain(setting)
    }
    expect(snippet).toMatch(/\.listen\(8644, '127\.0\.0\.1'\)/)
  })

  it('imports only what the package exports', () => {
    const imported = /import \{([^}]*)\} from 'hookpilot'/.exec(snippet)?.[1]?.split(',').map((s) => s.trim()) ?? []
    expect(imported.length).toBeGreaterThan(0)
    for (const name of imported) expect(hookpilot, name).toHaveProperty(name)
  })
})
