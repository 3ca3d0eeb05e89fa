/**
 * A flood of forgeries leaves a few log lines, not one per request, and says how many it left out.
 */
import { describe, expect, it } from 'vitest'
import { githubHeaders, githubPayload, signGithub } from '../fixtures/github.js'
import { SECRET, testGateway } from '../fixtures/gateway.js'

describe('rejected requests in the log', () => {
  it('logs the first forgery of a kind per route, then one line per 10 s window with the count left out', async () => {
    const { gateway, log, clock } = await testGateway()
    const body = githubPayload('pull_request', 'opened')
    const forged = { ...githubHeaders('pull_request', body, SECRET), 'x-hub-signature-256': signGithub(body, 'wrong') }
    const send = (headers: Record<string, string>) => gateway.handle({ method: 'POST', path: '/webhooks/pr', headers, body })
    const rejections = () => log.lines.filter((l) => l.message.startsWith('rejected request'))

    for (let i = 0; i < 50; i++) expect((await send(forged)).status).toBe(401)
    expect(rejections()).toEqual([{ level: 'warn', message: 'rejected request: invalid signature', fields: { route: 'pr', reason: 'signature mismatch' } }])

    // Another kind of rejection on the same route is logged on its own.
    const unsigned = { ...forged }
    delete (unsigned as Record<string, string>)['x-hub-signature-256']
    expect((await send(unsigned)).status).toBe(401)
    expect(rejections()).toHaveLength(2)

    clock.advance(10_001)
    expect((await send(forged)).status).toBe(401)
    expect(rejections().at(-1)?.fields).toEqual({ route: 'pr', reason: 'signature mismatch', suppressed: 49 })
    await gateway.close()
  })
})
