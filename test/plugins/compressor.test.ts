/** Payload compression on a worker thread: the same bytes as on the request thread, in order, and no payload lost when it fails. */
import { spawnSync } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { compressJson, decompressJson } from '../../src/plugins/state/compress-json.js'
import { workerCompressor, type Compressor } from '../../src/plugins/state/compressor.js'

const text = (i: number) => JSON.stringify({ action: 'synchronize', number: i, body: `pull request ${i} `.repeat(200 + i) })

let compressor: Compressor | undefined
afterEach(async () => {
  await compressor?.close()
  compressor = undefined
})

describe('workerCompressor', () => {
  it('answers every payload of a burst, in the order asked, with what compressJson gives', async () => {
    compressor = workerCompressor()
    const settled: number[] = []
    const ask = (i: number) => compressor!.compress(text(i)).then((bytes) => {
      settled.push(i)
      return bytes
    })
    // Three turns of the event loop's worth of payloads: three messages to the worker, answered in turn.
    const asked: Array<Promise<Buffer>> = []
    for (let turn = 0; turn < 3; turn++) {
      for (let k = 0; k < 20; k++) asked.push(ask(turn * 20 + k))
      await new Promise((resolve) => setImmediate(resolve))
    }
    const results = await Promise.all(asked)
    results.forEach((bytes, i) => {
      expect(decompressJson(bytes)).toBe(text(i))
      expect(bytes.equals(compressJson(text(i)))).toBe(true)
    })
    expect(settled).toEqual(Array.from({ length: 60 }, (_, i) => i))
  })

  it('a worker that dies leaves nothing unanswered: what it held and what comes after is compressed here, in order', async () => {
    const stops: unknown[] = []
    compressor = workerCompressor((err) => stops.push(err))
    const settled: string[] = []
    const ask = (name: string, json: string) => compressor!.compress(json).then(
      (bytes) => settled.push(`${name} ${decompressJson(bytes) === json ? 'ok' : 'wrong'}`),
      () => settled.push(`${name} failed`),
    )
    // Not a string: brotli throws inside the worker, an uncaught error there that stops it.
    const first = [ask('a', text(1)), ask('bad', undefined as unknown as string), ask('b', text(2))]
    await new Promise((resolve) => setImmediate(resolve)) // posted: a, bad and b are the worker's
    const during = ask('c', text(3)) // asked while the worker is dying: after the three, whatever happens first
    await Promise.all([...first, during])
    await ask('d', text(4))
    expect(settled).toEqual(['a ok', 'bad failed', 'b ok', 'c ok', 'd ok'])
    expect(stops).toHaveLength(1)
  })

  it('close() answers what was asked before it, in order, and later payloads after them', async () => {
    compressor = workerCompressor()
    const settled: string[] = []
    const ask = (name: string, i: number) => compressor!.compress(text(i)).then((bytes) => settled.push(`${name} ${decompressJson(bytes) === text(i)}`))
    const sent = ask('sent', 3)
    await new Promise((resolve) => setImmediate(resolve)) // the batch is posted to the worker
    const unsent = ask('unsent', 4) // in the next turn's batch, not posted yet
    const closing = compressor.close()
    const after = ask('after', 5) // compressed here, answered after the two before it
    await Promise.all([sent, unsent, closing, after])
    expect(settled).toEqual(['sent true', 'unsent true', 'after true'])
    await ask('closed', 6)
    expect(settled.at(-1)).toBe('closed true')
  })

  it('keeps a process alive only while it owes an answer', () => {
    const dist = JSON.stringify(new URL('../../dist/plugins/state/compressor.js', import.meta.url).href)
    const run = (body: string) => spawnSync(process.execPath, ['--input-type=module', '-e', `const { workerCompressor } = await import(${dist})\n${body}`], { encoding: 'utf8', timeout: 10_000 })
    // Never closed (a gateway whose listen() failed): the process still ends by itself.
    expect(run('workerCompressor(); console.log("started")')).toMatchObject({ status: 0, stdout: 'started\n' })
    // Waiting for nothing but the worker's answer: the process does not end before it comes.
    const waited = run('const bytes = await workerCompressor().compress(JSON.stringify({ a: 1 })); console.log(bytes.length > 0)')
    expect(waited).toMatchObject({ status: 0, stdout: 'true\n' })
  })
})
