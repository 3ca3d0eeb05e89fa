/**
 * `npm run bench:sdk`: what the market client costs. Three measurements, each as ratios against baselines taken in
 * the same run (see docs/benchmarks.md):
 *
 *   1. client CPU per call with the network taken out: a fetch that answers from memory, for hookpilot, a plain
 *      fetch + JSON.parse of the same body (alone, then with the SDK's schemas: its own work without ky), ky with
 *      every option off (the floor of keeping ky; alone, then with the SDK's schemas), and @polymarket/clob-client
 *      (axios on its fetch adapter, given the same in-memory fetch), on the calls both clients have (book, midpoint);
 *   2. the same calls over loopback HTTP to a node:http server in another process: wall time and client CPU, with
 *      raw fetch and ky's floor beside them;
 *   3. pm.watchBooks() fed 10,000 price_change frames a second by a WebSocket server in another process: the
 *      client's CPU as a share of one core, beside a bare `ws` + JSON.parse reader of the same frames, in
 *      alternating rounds (the round with the median ratio is kept).
 *
 * Knobs: BENCH_CALLS [20000] calls per client per round, BENCH_ROUNDS [3], BENCH_STREAM_SECONDS [5] per reader and
 * round, BENCH_STREAM_ROUNDS [3] (bare and watchBooks each, alternating), BENCH_RATE [10000] frames a second,
 * BENCH_ONLY [memory,loopback,stream] the sections to run (comma-separated), BENCH_JSON [file] for the figures.
 */
import { fork } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ClobClient } from '@polymarket/clob-client'
// clob-client's own axios (a dependency of it, hoisted): the instance whose defaults its calls read.
import axios from 'axios'
import ky from 'ky'
import WebSocket from 'ws'
import * as v from 'valibot'
import { createMarketClient } from '../dist/sdk/index.js'
import { toBook } from '../dist/sdk/clob/model.js'
import { ClobBookSchema, ClobMidpointSchema } from '../dist/sdk/wire/clob.js'
import { BOOK_BODY, MIDPOINT_BODY, STREAM_TOKENS, TOKEN } from './sdk-fixtures.js'

const here = dirname(fileURLToPath(import.meta.url))
const env = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback)
const CALLS = env('BENCH_CALLS', 20_000)
const ROUNDS = env('BENCH_ROUNDS', 3)
const STREAM_SECONDS = env('BENCH_STREAM_SECONDS', 5)
const RATE = env('BENCH_RATE', 10_000)
const STREAM_ROUNDS = env('BENCH_STREAM_ROUNDS', 3)
const ONLY = new Set((process.env.BENCH_ONLY ?? 'memory,loopback,stream').split(',').map((s) => s.trim()))
const GOALS = { memoryVsRaw: 2, loopbackWallVsClob: 1, loopbackCpuVsKy: 1.15, streamVsBare: 1.3, streamCore: 0.2 }

const children = new Set()
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')))
function startServer(kind) {
  const child = fork(join(here, 'sdk-server.js'), [kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  children.add(child)
  return new Promise((resolve, reject) => {
    child.once('message', (m) => (m?.type === 'ready' ? resolve({ child, port: m.port }) : reject(new Error(String(m)))))
    child.once('exit', (code) => reject(new Error(`sdk-server ${kind} exited ${code}`)))
  })
}

/** CPU µs and wall µs per call of `fn`, sequentially, after a warm-up. */
async function perCall(fn, calls) {
  for (let i = 0; i < Math.min(2000, calls); i++) await fn()
  const cpu = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) await fn()
  const wall = ((performance.now() - t0) * 1000) / calls
  const used = process.cpuUsage(cpu)
  return { cpu: (used.user + used.system) / calls, wall }
}

/** Runs each contestant `ROUNDS` times, alternating the order, and keeps each one's median round. */
async function compare(contestants, calls) {
  const runs = Object.fromEntries(Object.keys(contestants).map((k) => [k, []]))
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? Object.keys(contestants) : Object.keys(contestants).reverse()
    for (const name of order) runs[name].push(await perCall(contestants[name], calls))
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  return Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, { cpu: median(v.map((x) => x.cpu)), wall: median(v.map((x) => x.wall)) }]))
}

/** Limits no benchmark reaches: the budget does its bookkeeping but never waits. */
const NEVER_WAIT = { clob: 1e12, 'clob /book': 1e12, 'clob /midpoint': 1e12 }

const memoryFetch = async (input) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  return new Response(url.includes('/book') ? BOOK_BODY : MIDPOINT_BODY, { headers: { 'content-type': 'application/json' } })
}

async function inMemory() {
  const host = 'http://clob.invalid'
  // The request budget off: at 20,000 calls it would pace them to the published 1,500 per 10 s and time the limit,
  // not the client. `+ budget` runs it with limits too high ever to wait: what the budget's bookkeeping costs a call.
  const pm = createMarketClient({ clobUrl: host, fetch: memoryFetch, rateLimit: false })
  const token = pm.token(TOKEN)
  const budgeted = createMarketClient({ clobUrl: host, fetch: memoryFetch, rateLimit: { limits: NEVER_WAIT } }).token(TOKEN)
  // clob-client calls axios, whose fetch adapter takes the same in-memory fetch: only the clients' own work differs.
  axios.defaults.adapter = 'fetch'
  axios.defaults.env = { ...axios.defaults.env, fetch: memoryFetch }
  const clob = new ClobClient(host, 137)
  const raw = (path) => async () => JSON.parse(await (await memoryFetch(`${host}${path}?token_id=${TOKEN}`)).text())
  // ky with every option off (no retry, no timeout, no headers, no hooks): what keeping ky costs at the least, since
  // ky makes an AbortController, a Request and a clone of it on every call whatever it is told.
  const api = ky.create({ fetch: memoryFetch, retry: 0, throwHttpErrors: false, timeout: false })
  const kyFloor = (path) => async () => JSON.parse(await (await api(`${host}${path}?token_id=${TOKEN}`)).text())
  // raw fetch + the SDK's own schemas and conversion, no ky: what the client's work costs without ky's.
  const validated = (path, schema) => async () => v.parse(schema, JSON.parse(await (await memoryFetch(`${host}${path}?token_id=${TOKEN}`)).text()))
  // The floor of ky + the SDK's schemas: the least a client that keeps ky and validates can cost.
  const kyValidated = (path, schema) => async () => v.parse(schema, JSON.parse(await (await api(`${host}${path}?token_id=${TOKEN}`)).text()))
  const bookSchema = v.pipe(ClobBookSchema, v.transform(toBook))
  const midSchema = ClobMidpointSchema
  const book = await compare({ raw: raw('/book'), '+ validation': validated('/book', bookSchema), 'ky floor': kyFloor('/book'), 'ky floor + v.': kyValidated('/book', bookSchema), hookpilot: () => token.book(), '+ budget': () => budgeted.book(), 'clob-client': () => clob.getOrderBook(TOKEN) }, CALLS)
  const midpoint = await compare({ raw: raw('/midpoint'), '+ validation': validated('/midpoint', midSchema), 'ky floor': kyFloor('/midpoint'), 'ky floor + v.': kyValidated('/midpoint', midSchema), hookpilot: () => token.midpoint(), '+ budget': () => budgeted.midpoint(), 'clob-client': () => clob.getMidpoint(TOKEN) }, CALLS)
  axios.defaults.adapter = ['xhr', 'http', 'fetch']
  delete axios.defaults.env.fetch
  return { book, midpoint }
}

async function loopback() {
  const { child, port } = await startServer('http')
  const host = `http://127.0.0.1:${port}`
  const token = createMarketClient({ clobUrl: host, rateLimit: false }).token(TOKEN)
  const budgeted = createMarketClient({ clobUrl: host, rateLimit: { limits: NEVER_WAIT } }).token(TOKEN)
  const clob = new ClobClient(host, 137)
  const raw = (path) => async () => JSON.parse(await (await fetch(`${host}${path}?token_id=${TOKEN}`)).text())
  const api = ky.create({ retry: 0, throwHttpErrors: false, timeout: false })
  const kyFloor = (path) => async () => JSON.parse(await (await api(`${host}${path}?token_id=${TOKEN}`)).text())
  const calls = Math.max(500, Math.round(CALLS / 10))
  const book = await compare({ raw: raw('/book'), 'ky floor': kyFloor('/book'), hookpilot: () => token.book(), '+ budget': () => budgeted.book(), 'clob-client': () => clob.getOrderBook(TOKEN) }, calls)
  const midpoint = await compare({ raw: raw('/midpoint'), 'ky floor': kyFloor('/midpoint'), hookpilot: () => token.midpoint(), '+ budget': () => budgeted.midpoint(), 'clob-client': () => clob.getMidpoint(TOKEN) }, calls)
  child.send({ type: 'stop' })
  return { book, midpoint }
}

/** Share of one core the reader used while the server sent `RATE` frames a second for `STREAM_SECONDS`. */
async function streamShare(server, read) {
  const { child } = server
  await read.open()
  const cpu = process.cpuUsage()
  const t0 = performance.now()
  const done = new Promise((resolve) => {
    const on = (m) => {
      if (m?.type !== 'streamed') return
      child.off('message', on)
      resolve(m.frames)
    }
    child.on('message', on)
  })
  child.send({ type: 'stream', rate: RATE, seconds: STREAM_SECONDS })
  const frames = await done
  await read.drained(frames)
  const used = process.cpuUsage(cpu)
  const seconds = (performance.now() - t0) / 1000
  await read.close()
  return { frames, seconds, share: (used.user + used.system) / 1e6 / seconds, applied: read.count() }
}

const waitFor = async (check) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5))
}

/** Baseline: a bare ws reader that parses every frame and does nothing else. */
function bareReader(url) {
  let frames = 0
  let socket
  return {
    open: () => new Promise((resolve) => {
      socket = new WebSocket(url)
      socket.on('open', () => socket.send(JSON.stringify({ assets_ids: STREAM_TOKENS, type: 'market' })))
      socket.on('message', (data) => {
        const parsed = JSON.parse(data.toString())
        if (Array.isArray(parsed)) resolve()
        else frames++
      })
    }),
    drained: (n) => waitFor(() => frames >= n),
    close: async () => socket.close(),
    count: () => frames,
  }
}

/** hookpilot: every frame through pm.watchBooks(), the book kept and a snapshot yielded per change. */
function sdkReader(url) {
  const pm = createMarketClient({ wsUrl: url })
  let updates = 0
  let resyncs = 0
  let loop
  const controller = new AbortController()
  return {
    open: () => new Promise((resolve) => {
      loop = (async () => {
        for await (const u of pm.watchBooks(STREAM_TOKENS, { signal: controller.signal })) {
          if (u.source === 'snapshot') {
            if (++updates === STREAM_TOKENS.length) resolve()
            continue
          }
          if (u.source === 'resync') resyncs++
          updates++
        }
      })()
    }),
    drained: (frames) => waitFor(() => updates - STREAM_TOKENS.length >= frames),
    close: async () => {
      controller.abort()
      await loop
    },
    count: () => updates - STREAM_TOKENS.length,
    resyncs: () => resyncs,
  }
}

/**
 * `STREAM_ROUNDS` rounds, each a bare reader then watchBooks (alternating which goes first), against one server;
 * the ratio of each round is taken, and the round with the median ratio is kept.
 */
async function stream() {
  const server = await startServer('stream')
  const url = `ws://127.0.0.1:${server.port}/ws/market`
  const rounds = []
  for (let r = 0; r < STREAM_ROUNDS; r++) {
    const round = {}
    for (const name of r % 2 === 0 ? ['bare', 'hookpilot'] : ['hookpilot', 'bare']) {
      const reader = name === 'bare' ? bareReader(url) : sdkReader(url)
      round[name] = await streamShare(server, reader)
      if (reader.resyncs) round[name].resyncs = reader.resyncs()
    }
    round.ratio = round.hookpilot.share / round.bare.share
    rounds.push(round)
  }
  server.child.send({ type: 'stop' })
  const kept = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)]
  return { ...kept, rounds: rounds.map((r) => r.ratio) }
}

const us = (n) => n.toFixed(1).padStart(7)
const x = (n) => `${n.toFixed(2)}x`
const verdict = (ok) => (ok ? 'PASS' : 'MISS')

function printCalls(title, results, goal) {
  console.log(title)
  console.log('  call       client        CPU us/call  wall us/call  CPU vs raw  CPU vs ky floor  CPU vs clob-client  wall vs clob-client')
  for (const [call, r] of Object.entries(results)) {
    for (const name of ['raw', '+ validation', 'ky floor', 'ky floor + v.', 'hookpilot', '+ budget', 'clob-client']) {
      const v = r[name]
      if (v === undefined) continue
      const ratios = [v.cpu / r.raw.cpu, v.cpu / r['ky floor'].cpu, v.cpu / r['clob-client'].cpu, v.wall / r['clob-client'].wall]
      console.log(`  ${call.padEnd(10)} ${name.padEnd(12)} ${us(v.cpu)}      ${us(v.wall)}      ${ratios.map((n, i) => x(n).padStart([7, 12, 14, 17][i])).join('     ')}`)
    }
  }
  if (goal) console.log(`  ${goal(results)}`)
  console.log('')
}

async function main() {
  console.log(`hookpilot sdk bench: node ${process.version}, ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? '?'}), load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  console.log(`book body ${BOOK_BODY.length.toLocaleString('en-US')} bytes (30 levels a side); ${CALLS.toLocaleString('en-US')} calls per client per round, ${ROUNDS} rounds (median kept)\n`)
  const figures = { node: process.version, cpus: os.cpus().length }
  if (ONLY.has('memory')) {
    figures.memory = await inMemory()
    printCalls('1. CPU per call, network taken out (a fetch answering from memory)', figures.memory, (r) => {
      const worst = Math.max(...Object.values(r).map((c) => c.hookpilot.cpu / c.raw.cpu))
      const floor = Math.min(...Object.values(r).map((c) => c['ky floor'].cpu / c.raw.cpu))
      const over = Math.max(...Object.values(r).map((c) => c.hookpilot.cpu / c['ky floor + v.'].cpu))
      return `goal: hookpilot <= ${GOALS.memoryVsRaw}x raw fetch + JSON.parse: worst ${x(worst)}  ${verdict(worst <= GOALS.memoryVsRaw)}` +
        `\n  (ky with every option off is already ${x(floor)} raw at best; hookpilot is at worst ${x(over)} that floor + the schemas)`
    })
  }
  if (ONLY.has('loopback')) {
    figures.http = await loopback()
    printCalls(`2. Over loopback HTTP (server in another process), sequential calls`, figures.http, (r) => {
      const wall = r.book.hookpilot.wall / r.book['clob-client'].wall
      const cpu = r.book.hookpilot.cpu / r.book['ky floor'].cpu
      return `goal: book() wall <= ${GOALS.loopbackWallVsClob}x clob-client's: ${x(wall)}  ${verdict(wall <= GOALS.loopbackWallVsClob)}` +
        `\n  goal: book() CPU <= ${GOALS.loopbackCpuVsKy}x ky's floor (a bare ky GET + JSON.parse of the same body): ${x(cpu)}  ${verdict(cpu <= GOALS.loopbackCpuVsKy)}`
    })
  }
  if (ONLY.has('stream')) {
    const s = (figures.stream = await stream())
    console.log(`3. pm.watchBooks() fed ${RATE.toLocaleString('en-US')} price_change frames/s for ${STREAM_SECONDS} s (server in another process), ${STREAM_TOKENS.length} tokens, ${STREAM_ROUNDS} rounds (the median ratio's kept)`)
    console.log(`  bare ws + JSON.parse      ${(s.bare.share * 100).toFixed(1).padStart(5)} % of one core  (${s.bare.applied.toLocaleString('en-US')} frames)`)
    console.log(`  hookpilot watchBooks      ${(s.hookpilot.share * 100).toFixed(1).padStart(5)} % of one core  (${s.hookpilot.applied.toLocaleString('en-US')} book updates, ${s.hookpilot.resyncs} resyncs)  ${x(s.hookpilot.share / s.bare.share)} bare`)
    console.log(`  each round's ratio: ${s.rounds.map(x).join(' ')}`)
    console.log(`  goal: watchBooks CPU <= ${GOALS.streamVsBare}x the bare reader's: ${x(s.ratio)}  ${verdict(s.ratio <= GOALS.streamVsBare)}`)
    console.log(`  goal: under ${GOALS.streamCore * 100} % of one core  ${verdict(s.hookpilot.share < GOALS.streamCore)}`)
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2) + '\n')
}

try {
  await main()
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? err.stack : String(err)}`)
  process.exitCode = 1
} finally {
  for (const c of children) c.kill('SIGKILL')
}
