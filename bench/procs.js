/**
 * The bench's child processes: every one is registered, and every one is killed on the way out, whatever the
 * way out (an error, Ctrl-C, the end). A child asked over IPC answers with a message of an agreed type.
 */
import { fork, spawn } from 'node:child_process'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const children = new Set()
const others = new Set()

/** Forks `bench/<script>` with an IPC channel; stdout and stderr as given (inherited by default). */
export function start(script, args, { execArgv = [], stdout = 'inherit', stderr = 'inherit' } = {}) {
  const child = fork(join(here, script), args, { execArgv, stdio: ['ignore', stdout, stderr, 'ipc'] })
  child.label = [script, ...args].join(' ')
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/**
 * Spawns a program that is not a bench script (redis-server): no IPC, so `stopAll` leaves it to its owner, but
 * `killAll` kills it with the rest on every way out.
 */
export function spawnTracked(command, args, options = {}) {
  const child = spawn(command, args, options)
  child.label = [command, ...args].join(' ')
  others.add(child)
  child.once('exit', () => others.delete(child))
  child.once('error', () => others.delete(child))
  return child
}

/** Kills every child still running. */
export function killAll(signal = 'SIGKILL') {
  for (const child of [...children, ...others]) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
}

/** Asks `list` (default: all children) to exit (a --cpu-prof profile is written on a normal exit), then kills what is left. */
export async function stopAll(list = [...children]) {
  const exits = list.map((child) => new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    child.once('exit', done)
    if (child.connected) child.send({ type: 'stop' }, () => {})
  }))
  let timer
  await Promise.race([Promise.all(exits), new Promise((done) => (timer = setTimeout(done, 5000)))])
  clearTimeout(timer)
  for (const child of list) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

process.on('exit', () => killAll('SIGKILL'))
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killAll('SIGKILL')
    process.exit(128 + (os.constants.signals[signal] ?? 1))
  })
}

let nextId = 1
/** Sends `message` and resolves with the child's answer of type `type` (and the same id), or rejects. */
export function ask(child, message, type, timeoutMs = 60_000) {
  const id = nextId++
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer)
      child.off('message', onMessage).off('exit', onExit)
    }
    const onMessage = (m) => {
      if (m?.type === 'failed') {
        cleanup()
        reject(new Error(`${child.label}: ${m.reason}`))
      } else if (m?.type === type && (m.id === undefined || m.id === id)) {
        cleanup()
        resolve(m)
      }
    }
    const onExit = (code, signal) => {
      cleanup()
      reject(new Error(`${child.label} exited (${signal ?? code}) while we waited for "${type}"`))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`${child.label} gave no "${type}" within ${timeoutMs} ms`))
    }, timeoutMs)
    child.on('message', onMessage).once('exit', onExit)
    if (message) child.send({ ...message, id })
  })
}
