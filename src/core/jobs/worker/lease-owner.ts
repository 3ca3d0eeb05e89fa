/**
 * Who holds a lease, and whether that holder is alive: the worker kit's judgement of a crash, the same for every
 * backend (the store only keeps the owner's name beside the lease).
 */
import { readFileSync, readlinkSync } from 'node:fs'

/**
 * Who holds a lease: the host, the boot and the pid namespace the process lives in, its pid, and a token of its
 * own. Only a holder in this very namespace can be judged by its pid (two containers may both run their
 * gateway as pid 1, on one host name, sharing one state file); any other is judged by its lease alone.
 */
export interface LeaseOwner {
  readonly host: string
  readonly boot: string
  readonly pidns: string
  readonly pid: number
  readonly token: string
}

/** This process as a lease owner; `token` tells it from an earlier process that had its pid. */
export function thisOwner(host: string, token: string): LeaseOwner {
  return { host, boot: readFirstLine('/proc/sys/kernel/random/boot_id'), pidns: readLink('/proc/self/ns/pid'), pid: process.pid, token }
}

/** How a lease owner is stored. */
export function ownerName(owner: LeaseOwner): string {
  return JSON.stringify([owner.host, owner.boot, owner.pidns, owner.pid, owner.token])
}

/** A stored owner, or undefined for one written some other way (judged by its lease alone). */
export function parseOwner(name: string | null): LeaseOwner | undefined {
  try {
    const [host, boot, pidns, pid, token] = JSON.parse(name ?? '') as unknown[]
    if (typeof host !== 'string' || typeof boot !== 'string' || typeof pidns !== 'string' || typeof pid !== 'number' || typeof token !== 'string') return undefined
    return { host, boot, pidns, pid, token }
  } catch {
    return undefined
  }
}

/** Whether `other` lives where this process's pids mean the same processes (same host, boot, pid namespace). */
export function sameNamespace(me: LeaseOwner, other: LeaseOwner): boolean {
  return me.boot !== '' && me.pidns !== '' && other.host === me.host && other.boot === me.boot && other.pidns === me.pidns
}

/** Whether a process of this namespace still runs. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

function readFirstLine(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return ''
  }
}

function readLink(path: string): string {
  try {
    return readlinkSync(path)
  } catch {
    return ''
  }
}
