// The plugin proven by the same contract suite as hookpilot's own targets.
import { mkdtempSync, readFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deliveryTargetContract, setUpPlugin } from 'hookpilot/testing'
import audit from './index.mjs'

const TOKEN = 'audit-token-0123456789'

deliveryTargetContract('audit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-'))
  const plugin = await setUpPlugin(audit, { file: 'audit.jsonl', token: TOKEN }, { baseDir: dir })
  const file = join(dir, 'audit.jsonl')
  return {
    target: plugin.deliveryTargets[0],
    secrets: [TOKEN],
    delivered: () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).text) : []),
  }
})
