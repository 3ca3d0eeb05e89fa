/**
 * The PostgreSQL backend over TLS to a PostgreSQL this file starts with a certificate of a CA made here: with
 * the CA given (`ca_file`'s `ssl: { ca }`) it connects over TLS even when the URL says `sslmode=verify-full`
 * (which `pg` would otherwise let replace the CA), and a server whose certificate another CA signed is refused.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/core/log/logger.js'
import { postgresState } from '../../src/plugins/state/postgres/postgres-state.js'
import { newJob } from '../../src/testing/state-backend.js'
import { usePostgres } from '../fixtures/postgres.js'

const dir = mkdtempSync(join(tmpdir(), 'hookpilot-pg-tls-'))
const openssl = (...args: string[]) => {
  const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr}`)
}
/** A CA of its own (`name`.crt, `name`.key). */
const makeCa = (name: string) => openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '1', '-subj', `/CN=${name}`)
makeCa('ca')
makeCa('other-ca')
writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1')
openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.cnf')
const read = (file: string) => readFileSync(join(dir, file), 'utf8')

const server = usePostgres({ tls: { cert: read('server.crt'), key: read('server.key') } })

describe('postgresState over TLS', () => {
  it('with the CA given, connects over TLS (verify-full in the URL or not), and stores and reads jobs', async () => {
    for (const url of [`${server.url}?sslmode=verify-full`, server.url]) {
      const state = postgresState({ url, schema: 'tls', ssl: { ca: read('ca.crt'), rejectUnauthorized: true }, concurrency: 1, maxQueue: 10 })
      await state.start?.({ log: silentLogger, admin: true })
      try {
        const id = `tls-${url.length}`
        expect(await state.queue.add(newJob(id), await state.dedup.reserve(`pr\u0000${id}`))).toMatchObject({ status: 'accepted' })
        expect((await state.jobs.find('pr', id))?.deliveryId).toBe(id)
        const admin = new pg.Client({ connectionString: server.url })
        await admin.connect()
        const { rows } = await admin.query<{ ssl: boolean }>(
          "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'hookpilot'",
        )
        await admin.end()
        expect(rows.length).toBeGreaterThan(0)
        expect(rows.every((r) => r.ssl)).toBe(true)
      } finally {
        await state.close?.()
      }
    }
  })

  it('refuses a server whose certificate another CA signed, saying so', async () => {
    const state = postgresState({ url: server.url, schema: 'tls', ssl: { ca: read('other-ca.crt'), rejectUnauthorized: true }, concurrency: 1, maxQueue: 10 })
    await expect(state.start?.({ log: silentLogger })).rejects.toThrow(/cannot open the state in PostgreSQL 127\.0\.0\.1:\d+\/postgres \(schema tls\): .*certificate/)
  })
})
