// Serving an app over HTTP: listen, then on close stop accepting, let in-flight requests finish
// (bounded by a grace period) and close what connections remain. Nothing else: the service is
// composed in src/service.ts.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TrustedProxy } from '../config/index.js'
import type { Logger } from '../logger.js'
import type { App } from './app.js'
import { answerClientError } from './client-error.js'
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

export interface HttpServer {
  server: Server
  /** http://host:port, with a wildcard address named as loopback. */
  url: string
  /** Drain, then close every connection. Resolves when the server is closed. */
  close: () => Promise<void>
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
  server.on('clientError', (err: NodeJS.ErrnoException, socket) =>
    answerClientError(err, socket, app.clientErrorAnswered))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => { server.off('error', reject); resolve() })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${address.port}`
  const close = async (): Promise<void> => {
    app.draining = true
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    const deadline = Date.now() + options.shutdownGraceMs
    while (app.inFlight() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    if (app.inFlight() > 0) {
      logger.warn({ in_flight: app.inFlight() }, 'shutdown grace ended; closing remaining connections')
    }
    server.closeAllConnections()
    await stopped
    app.stop()
  }
  return { server, url, close }
}
