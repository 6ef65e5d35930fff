// Serving an app over HTTP: listen, then on close stop accepting, let in-flight requests finish
// (bounded by a grace period) and close what connections remain. Nothing else: the service is
// composed in src/service.ts.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '../logger.js'
import type { App } from './app.js'
import { answerClientError, clientErrorResponse } from './client-error.js'
import { HttpProblem } from './problem.js'
import type { Socket } from 'node:net'

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
  /** Connections from one address beyond this many are answered 503 and closed (0: no limit). */
  maxConnectionsPerAddress: number
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
    limitPerAddress(server, options.maxConnectionsPerAddress, options.onConnectionRefused)
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

/**
 * At most `limit` open connections per client address: one address holding a thousand idle
 * sockets (slowloris) would otherwise take every connection the instance has. The one too many
 * is answered with a problem and closed before any request is read.
 */
function limitPerAddress (server: Server, limit: number, refused?: () => void): void {
  const open = new Map<string, number>()
  // before the HTTP server's own listener: a refused socket never gets a parser
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? ''
    const count = (open.get(address) ?? 0) + 1
    open.set(address, count)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left > 0) open.set(address, left)
      else open.delete(address)
    })
    if (count <= limit) return
    refused?.()
    const problem = new HttpProblem('service_unavailable', { detail: `This address has ${limit} connections open ` +
      'to aloft, the most it may; reuse them (keep-alive) or close some.', headers: { 'Retry-After': 1 } })
    socket.on('error', () => {})
    socket.end(clientErrorResponse(problem))
    socket.destroySoon()
  })
}
