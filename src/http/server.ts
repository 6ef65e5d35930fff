// Serving an app over HTTP: listen, and on close drain (docs/DESIGN.md §11): the listening socket
// closes first, so a balancer sees refused connections; every answer from then on, those under
// way included, says Connection: close; a connection left idle stays open until it ends at its
// keep-alive timeout or carries one more request (answered, with Connection: close), because
// closing it under a client that is sending on it would reset that request. The grace period
// bounds it all. Nothing else: the service is composed in src/service.ts.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleepMs } from 'node:timers/promises'
import type { TrustedProxy } from '../config/index.js'
import type { Logger } from '../logger.js'
import type { App } from './app.js'
import { limitPerAddress } from './connection-cap.js'
import { ClientAddresses } from './tawhiri/index.js'

export interface HttpOptions {
  port: number
  host: string
  /** How long close() waits for in-flight requests before closing their connections. */
  shutdownGraceMs: number
  /** A client that has not sent its headers (or its whole request) in this time gets a 408 and is disconnected. */
  headersTimeoutMs: number
  requestTimeoutMs: number
  /** An idle kept-alive connection is closed after this long. */
  keepAliveTimeoutMs: number
  /** Connections beyond this many are refused at once. */
  maxConnections: number
  /** Connections from one address (IPv6: /64) beyond this many are answered 503 and closed (0: no limit). */
  maxConnectionsPerAddress: number
  /** Proxies whose connections the per-address limit does not count. */
  trustedProxies: readonly TrustedProxy[]
  /** Told of each connection refused for its address. */
  onConnectionRefused?: () => void
}

/**
 * How a server stops. `drain`: as above, until every connection has ended or the grace period has
 * passed. `now`: for a process that owns its clients (tests, the CLI's own short-lived services):
 * idle connections are closed at once, requests under way still finish within the grace period.
 */
export type CloseMode = 'drain' | 'now'

export interface HttpServer {
  server: Server
  /** http://host:port, with a wildcard address named as loopback. */
  url: string
  /** Stops accepting, lets what is under way finish, then closes every connection. Resolves when closed. */
  close: (mode?: CloseMode) => Promise<void>
}

export async function listen (app: App, options: HttpOptions, logger: Logger): Promise<HttpServer> {
  const server = createServer({
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // Node enforces the two timeouts above only when it checks its connections (every 30 s by default)
    connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs)
  }, app.handler)
  server.maxConnections = options.maxConnections
  if (options.maxConnectionsPerAddress > 0) {
    limitPerAddress(server, options.maxConnectionsPerAddress, new ClientAddresses(options.trustedProxies),
      options.onConnectionRefused)
  }
  server.on('clientError', app.clientError)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => { server.off('error', reject); resolve() })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${address.port}`
  const close = async (mode: CloseMode = 'drain'): Promise<void> => {
    app.draining = true // answers under way and to come say Connection: close
    const stopped = new Promise<void>((resolve) => {
      if (mode === 'now') {
        server.close(() => resolve())
        return
      }
      // Node's close() also closes the idle keep-alive connections at once (Node ≥ 19): kept here
      const closeIdle = server.closeIdleConnections
      server.closeIdleConnections = () => {}
      server.close(() => resolve())
      server.closeIdleConnections = closeIdle
    })
    const graceOver = new Promise<'grace over'>((resolve) => {
      const timer = setTimeout(() => resolve('grace over'), options.shutdownGraceMs)
      void stopped.then(() => clearTimeout(timer))
    })
    if (mode === 'now') {
      let over = false
      void graceOver.then(() => { over = true })
      while (app.inFlight() > 0 && !over) await sleepMs(20)
    } else {
      await Promise.race([stopped, graceOver])
    }
    const connections = await new Promise<number>((resolve) => server.getConnections((_err, n) => resolve(n ?? 0)))
    if (app.inFlight() > 0 || (mode === 'drain' && connections > 0)) {
      logger.warn({ in_flight: app.inFlight(), connections }, 'shutdown grace ended; closing remaining connections')
    }
    server.closeAllConnections()
    await stopped
    app.stop()
  }
  return { server, url, close }
}
