/**
 * The subscriptions file decides who may reach the gateway, so it is read only when nobody but the gateway's
 * user could have written it (issue 13.7): a symbolic link (to /etc/passwd, whose first characters used to
 * reach an error line), a file of another user, or one writable by group or others is refused, by the gateway
 * and by the CLI, with a message that quotes nothing of its content.
 */
import { chmod, chown, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSubscriptions } from '../../src/core/routes/subscriptions/index.js'
import { cliTestSetup, hookpilot, liveGateway, postSigned, project } from './helpers.js'

const cleanup = cliTestSetup()
// An open route on loopback: served, it would let anyone run the agent.
const OPEN = JSON.stringify({ version: 1, subscriptions: { open: { secret: 'INSECURE_NO_AUTH' } } })
const MARKER = 'content-marker-7c1e'

async function loopbackProject() {
  const p = await project({ host: '127.0.0.1' })
  cleanup(p.cleanup)
  return p
}

describe('subscriptions file trust', () => {
  it('a symbolic link is refused, not followed, and nothing of its target is quoted', async () => {
    const { dir, config, file } = await loopbackProject()
    const target = join(dir, 'elsewhere.json')
    await writeFile(target, OPEN, { mode: 0o600 })
    await symlink(target, file)
    expect(await readSubscriptions(file)).toEqual({ status: 'invalid', reason: `it is a symbolic link, which is not followed: put the file itself at ${file}` })

    const live = await liveGateway(config, dir)
    cleanup(() => live.gateway.close())
    expect(await postSigned(live.url, 'open', 'anything')).toBe(404)
    expect(live.log.text()).toContain('symbolic link')

    // /etc/passwd through a link: refused before a byte is read.
    const passwd = join(dir, 'passwd-link.json')
    await symlink('/etc/passwd', passwd)
    const read = await readSubscriptions(passwd)
    expect(read.status).toBe('invalid')
    expect(JSON.stringify(read)).not.toMatch(/root:|:0:0/)

    for (const args of [['list'], ['subscribe', 'new-one'], ['test', 'open']]) {
      const res = await hookpilot(args, dir)
      expect(res.code, args.join(' ')).toBe(1)
      expect(res.stderr).toContain('symbolic link')
    }
  })

  it('a file writable by group or others is refused, its open route not served', async () => {
    const { dir, config, file } = await loopbackProject()
    await writeFile(file, OPEN, { mode: 0o600 })
    await chmod(file, 0o666)
    const live = await liveGateway(config, dir)
    cleanup(() => live.gateway.close())
    expect(await postSigned(live.url, 'open', 'anything')).toBe(404)
    expect(live.log.text()).toContain(`group or others may write it (mode 666): run chmod 600 ${file}`)
    await chmod(file, 0o620)
    expect(await readSubscriptions(file)).toMatchObject({ status: 'invalid', reason: expect.stringContaining('mode 620') })
    // Put right, it is read (the gateway notices within its poll).
    await chmod(file, 0o600)
    expect(await readSubscriptions(file)).toMatchObject({ status: 'ok' })
  })

  it('a file owned by another user is refused', async () => {
    const { dir, file } = await loopbackProject()
    await writeFile(file, OPEN, { mode: 0o600 })
    await chown(file, 65534, 65534) // the tests run as root (as CI does); nobody owns it now
    expect(await readSubscriptions(file)).toMatchObject({ status: 'invalid', reason: expect.stringContaining('belongs to another user (uid 65534)') })
    const res = await hookpilot(['list'], dir)
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('belongs to another user')
  })

  it('a file that is not JSON is refused without quoting it', async () => {
    const { file } = await loopbackProject()
    await writeFile(file, `root:x:0:0:${MARKER}:/root:/bin/bash\n`, { mode: 0o600 })
    const read = await readSubscriptions(file)
    expect(read).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/^not valid JSON/) })
    expect(JSON.stringify(read)).not.toContain(MARKER)
    expect(JSON.stringify(read)).not.toContain('root')
  })
})
