// The deployment check's clients (bench/deploy-check.ts): an HTTPS client at one loopback address
// that trusts the run's certificate and keeps its connections alive, as a stranger behind nginx;
// one GET on a connection of its own; a POST on a connection whose accepting process is known.
import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import { Agent, request } from 'node:https'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { ownerOf } from '../socket-owner.js'

/** An answer: its status and body, how long it took, and when it ended (epoch ms). */
export interface Answer { status: number, body: string, ms: number, at: number }

export type Ask = (url: string, options?: { headers?: Record<string, string>, method?: string, body?: string }) =>
Promise<Answer>

/** An HTTPS client at one loopback address that trusts the run's certificate, keeping its connections alive. */
export function client (pem: string, address: string): Ask {
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: pem, localAddress: address })
  return async (url, options = {}) => await new Promise((resolve) => {
    const t0 = performance.now()
    const req = request(url, { agent, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - t0, at: Date.now() }))
      res.on('error', () => resolve({ status: 0, body, ms: performance.now() - t0, at: Date.now() }))
    })
    req.on('error', (err) => resolve({ status: 0, body: err.message, ms: performance.now() - t0, at: Date.now() }))
    req.end(options.body)
  })
}

/**
 * One GET on a connection of its own (a kept one could lead to a stalled process), the body as text.
 * Over HTTPS with `ca` trusted; `path`, when given, is sent as written (no URL normalising it).
 */
export function getOnce (url: string, options: { ca?: string, path?: string } = {}):
Promise<{ status: number, body: string }> {
  const send = url.startsWith('https:') ? request : httpRequest
  return new Promise((resolve, reject) => {
    const req = send(url, { agent: false, headers: { connection: 'close' }, ca: options.ca,
      ...(options.path === undefined ? {} : { path: options.path }) }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * A POST on a new connection, sent once the process of `pids` that accepted it is known (the
 * kernel chooses which of a host's processes does): its status and that process.
 */
export async function postOnOwnConnection (port: number, path: string, body: string, key: string, pids: number[]):
Promise<{ status: number, pid: number }> {
  const socket = connect({ host: '127.0.0.1', port })
  await once(socket, 'connect')
  let pid: number | undefined
  while ((pid = await ownerOf(socket.localPort!, pids)) === undefined) await sleep(5)
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', createConnection: () => socket,
      headers: { 'x-api-key': key, 'content-type': 'application/json', connection: 'close' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(body)
  })
  socket.destroy()
  return { status, pid }
}
