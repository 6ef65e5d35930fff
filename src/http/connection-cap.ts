// At most ALOFT_MAX_CONNECTIONS_PER_ADDRESS open connections per client address (IPv6: per /64):
// one address holding a thousand idle sockets (slowloris) would otherwise take every connection the
// instance has. A trusted proxy's connections are not counted: they carry many clients. The one
// too many is refused, then closed: if it sends a request within a moment, in the shape that
// request's path answers in (request-start.ts: on a Tawhiri path Tawhiri's, readable by a page on
// another origin), else a problem document when the moment has passed (docs/DESIGN.md §10).
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { clientErrorResponse } from './client-error.js'
import { HttpProblem } from './problem.js'
import { addressGroup, type ClientAddresses } from './tawhiri/index.js'

/** How long a refused connection may take to send its request before it is answered without one. */
const REQUEST_WAIT_MS = 1000

/** Refused connections still waiting for their request, with the timer that answers without one. */
const refused = new WeakMap<Socket, NodeJS.Timeout>()

export function connectionCapProblem (limit: number): HttpProblem {
  return new HttpProblem('service_unavailable', {
    detail: `This address has ${limit} connections open to aloft, the most it may; reuse them (keep-alive) or ` +
      'close some.',
    headers: { 'Retry-After': 1 }
  })
}

/**
 * Whether the socket is one too many for its address; its refusal is then the request's to send
 * (the answer without a request is called off).
 */
export function overCap (socket: Socket): boolean {
  const timer = refused.get(socket)
  if (timer === undefined) return false
  clearTimeout(timer)
  refused.delete(socket)
  return true
}

/** Counts each connection against its client address; refuses the ones over `limit`. */
export function limitPerAddress (server: Server, limit: number, clients: ClientAddresses,
  onRefused?: () => void): void {
  const open = new Map<string, number>()
  // before the HTTP server's own listener, so the count is right before any request is read
  server.prependListener('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? ''
    if (clients.trusts(peer)) return
    const group = addressGroup(peer)
    const count = (open.get(group) ?? 0) + 1
    open.set(group, count)
    socket.once('close', () => {
      const left = (open.get(group) ?? 1) - 1
      if (left > 0) open.set(group, left)
      else open.delete(group)
    })
    if (count <= limit) return
    onRefused?.()
    const timer = setTimeout(() => {
      refused.delete(socket)
      socket.on('error', () => {})
      socket.end(clientErrorResponse(connectionCapProblem(limit)))
      socket.destroySoon()
    }, REQUEST_WAIT_MS)
    timer.unref()
    refused.set(socket, timer)
    socket.once('close', () => {
      clearTimeout(timer)
      refused.delete(socket)
    })
  })
}
