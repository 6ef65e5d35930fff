// A client at an address of its own: loopback addresses 127.x.y.z stand for strangers on the
// internet (Linux answers the whole 127.0.0.0/8 on lo). Requests go out over node:http from that
// source address, through a keep-alive agent with as many connections as asked, and the path is
// sent as written (fetch would resolve `//k/` and dot segments first).
import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import { connect, type Socket } from 'node:net'

export interface Answer { status: number, headers: IncomingHttpHeaders, body: string }

export interface Stranger {
  address: string
  /** GET `path` (as written) with these headers. */
  get: (path: string, headers?: Record<string, string>) => Promise<Answer>
  /** POST a JSON body. */
  post: (path: string, body: string, headers?: Record<string, string>) => Promise<Answer>
  /** Sends a request and destroys its socket `afterMs` later, answer unread. */
  leave: (path: string, afterMs: number) => Promise<void>
  /** An open socket from this address (for idle connections and hand-written requests). */
  socket: () => Promise<Socket>
  close: () => void
}

export function stranger (base: string, address: string, connections = 8): Stranger {
  const { hostname, port } = new URL(base)
  const agent = new Agent({ keepAlive: true, maxSockets: connections, localAddress: address })
  const sockets = new Set<Socket>()
  const send = async (method: string, path: string, body: string | undefined,
    headers: Record<string, string>): Promise<Answer> => await new Promise((resolve, reject) => {
    const req = request({ host: hostname, port: Number(port), method, path, agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => { text += d })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
  return {
    address,
    get: async (path, headers = {}) => await send('GET', path, undefined, headers),
    post: async (path, body, headers = {}) =>
      await send('POST', path, body, { 'content-type': 'application/json', ...headers }),
    leave: async (path, afterMs) => {
      const s = await open()
      s.write(`GET ${path} HTTP/1.1\r\nHost: aloft\r\n\r\n`)
      await new Promise((resolve) => setTimeout(resolve, afterMs))
      s.destroy()
    },
    socket: async () => await open(),
    close: () => {
      agent.destroy()
      for (const s of sockets) s.destroy()
    }
  }

  async function open (): Promise<Socket> {
    return await new Promise((resolve, reject) => {
      const s = connect({ host: hostname, port: Number(port), localAddress: address }, () => resolve(s))
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', reject)
    })
  }
}

/** The whole raw answer a socket receives until it closes (or `withinMs` passes). */
export async function rawAnswer (s: Socket, withinMs = 5000): Promise<string> {
  return await new Promise((resolve) => {
    let data = ''
    const timer = setTimeout(() => { s.destroy(); resolve(data) }, withinMs)
    s.on('data', (d) => { data += String(d) })
    s.on('error', () => {})
    s.on('close', () => { clearTimeout(timer); resolve(data) })
  })
}
