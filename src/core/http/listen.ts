/**
 * Starting a node:http server with errors a person can act on: a taken port names the key to change.
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { ListenError } from '../errors.js'

/** Where to listen; defaults come from `platforms.webhook.extra`. */
export interface ListenOptions {
  readonly host?: string | undefined
  readonly port?: number | undefined
}

/** Where the server listens. `url` uses `localhost` for a wildcard bind, so it can be pasted into a browser. */
export interface ListenAddress {
  readonly host: string
  readonly port: number
  readonly url: string
}

/** Listens, resolving once bound; rejects with a {@link ListenError} that says what to change. */
export function listenOn(server: Server, options: { host: string; port: number }): Promise<ListenAddress> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening)
      reject(new ListenError(describe(err, options), { cause: err }))
    }
    const onListening = () => {
      server.off('error', onError)
      const port = (server.address() as AddressInfo).port
      const shown = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host
      const hostInUrl = shown.includes(':') && !shown.startsWith('[') ? `[${shown}]` : shown
      resolve({ host: options.host, port, url: `http://${hostInUrl}:${port}` })
    }
    server.once('error', onError).once('listening', onListening)
    server.listen(options.port, options.host)
  })
}

function describe(err: NodeJS.ErrnoException, { host, port }: { host: string; port: number }): string {
  switch (err.code) {
    case 'EADDRINUSE':
      return `Port ${port} on ${host} is already in use (another gateway?). Stop that process, or change platforms.webhook.extra.port (or WEBHOOK_PORT, or --port).`
    case 'EACCES':
      return `No permission to listen on port ${port}: ports below 1024 need privileges. Change platforms.webhook.extra.port.`
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `Cannot listen on host "${host}": it is not an address of this machine. Change platforms.webhook.extra.host.`
    default:
      return `Cannot listen on ${host}:${port}: ${err.message}`
  }
}
