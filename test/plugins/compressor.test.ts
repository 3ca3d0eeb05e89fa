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
    // Three turns of the event loop's worth of payloads: three messages to the worker, answered in turn.
    const bursts = [0, 1, 2].map(async (turn) => {
      await new Promise((resolve) => setTimeout(resolve, turn))
      return Promise.all(Array.from({ length: 20 }, (_, k) => turn * 20 + k).map(async (i) => {
        const bytes = await compressor!.compress(text(i))
        settled.push(i)
        return bytes
      }))
    })
    const results = (await Promise.all(bursts)).flat()
    results.forEach((bytes, i) => {
      expect(decompressJson(bytes)).toBe(text(i))
      expect(bytes.equals(compressJson(text(i)))).toBe(true)
    })
    expect(settled).toEqual(Array.from({ length: 60 }, (_, i) => i))
  })

  it('fails the payloads a failed worker held, then compresses on the caller\'s thread', async () => {
    compressor = workerCompressor()
    // Not a string: brotli throws inside the worker, an uncaught error there that stops it.
    const held = [compressor.compress(text(1)), compressor.compress(undefined as unknown as string)]
    const outcomes = await Promise.allSettled(held)
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected'])
    expect(decompressJson(await compressor.compress(text(2)))).toBe(text(2))
  })

  it('close() waits for what the worker was sent; later payloads are compressed here', async () => {
    compressor = workerCompressor()
    const sent = compressor.compress(text(3))
    await new Promise((resolve) => setImmediate(resolve)) // the batch is posted to the worker
    await compressor.close()
    expect(decompressJson(await sent)).toBe(text(3))
    expect(decompressJson(await compressor.compress(text(4)))).toBe(text(4))
  })

  it('a payload asked for just before close() is compressed here rather than failed', async () => {
    compressor = workerCompressor()
    const asked = compressor.compress(text(5))
    await compressor.close()
    expect(decompressJson(await asked)).toBe(text(5))
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
