/**
 * Where a running `hookpilot serve` really listens, for the admin commands started beside it: `serve --port`
 * or `WEBHOOK_PORT` may differ from the config file, so `serve` writes its bound address beside the config
 * (`.hookpilot/listening.json`) and removes it on exit; a record whose process is gone is ignored.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** What serve records. */
export interface Listening {
  readonly pid: number
  readonly host: string
  readonly port: number
}

/** The record's file for a config file. */
export function listeningFile(configPath: string): string {
  return join(dirname(configPath), '.hookpilot', 'listening.json')
}

/** Records where this process listens; returns a function that removes the record. */
export function recordListening(configPath: string, host: string, port: number): () => void {
  const file = listeningFile(configPath)
  try {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, JSON.stringify({ pid: process.pid, host, port } satisfies Listening), { mode: 0o600 })
  } catch {
    return () => {} // a read-only folder: the admin commands fall back to the config's address
  }
  return () => rmSync(file, { force: true })
}

/** Where a live `serve` of this config listens, if one does. */
export function readListening(configPath: string): Listening | undefined {
  try {
    const record = JSON.parse(readFileSync(listeningFile(configPath), 'utf8')) as Partial<Listening>
    if (typeof record.pid !== 'number' || typeof record.port !== 'number' || typeof record.host !== 'string') return undefined
    process.kill(record.pid, 0) // throws when that serve is gone
    return { pid: record.pid, host: record.host, port: record.port }
  } catch {
    return undefined
  }
}

/** How the user ran this command, for hints they can paste: `npx --no-install hookpilot` when npx started it (the form that never installs a package of that name from the registry). */
export function commandName(env: NodeJS.ProcessEnv): string {
  return env['npm_command'] === 'exec' ? 'npx --no-install hookpilot' : 'hookpilot'
}
