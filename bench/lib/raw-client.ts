// A lean HTTP/1.1 client for bench/loadgen: requests formatted once into bytes, sent over raw
// keep-alive sockets, answers read only as far as their status line and Content-Length. Node's
// http client costs the generator several times the CPU per request, and the generator's own
// pauses (its collector, its event loop) then show up as the server's latency in an open loop.
// Only for answers with a Content-Length (aloft's JSON answers); no pipelining.
import { connect, type Socket } from 'node:net'

export type Outcome = { status: number } | { error: string }

const HEADER_END = Buffer.from('\r\n\r\n')

/** The bytes of one request. */
export function formatRequest (
  method: string, host: string, port: number, path: string, headers: Record<string, string>, body: Buffer | null
): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n`
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'content-length') head += `${name}: ${value}\r\n`
  }
  if (body !== null) head += `Content-Length: ${body.length}\r\n`
  head += '\r\n'
  return body === null ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), body])
}

class Connection {
  private socket: Socket | null = null
  private buffered: Buffer = Buffer.alloc(0)
  private pending: ((o: Outcome) => void) | null = null
  private timer: NodeJS.Timeout | undefined

  constructor (private readonly host: string, private readonly port: number) {}

  send (bytes: Buffer, timeoutMs: number, done: (o: Outcome) => void): void {
    this.pending = done
    this.timer = setTimeout(() => this.fail('error:timeout'), timeoutMs)
    this.socket ??= this.open()
    this.socket.write(bytes)
  }

  close (): void {
    this.socket?.destroy()
    this.socket = null
  }

  private open (): Socket {
    const socket = connect({ host: this.host, port: this.port })
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.onData(chunk))
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (this.socket === socket) this.fail(`error:${err.code ?? 'socket'}`)
    })
    socket.on('close', () => { if (this.socket === socket) this.fail('error:closed') })
    return socket
  }

  private onData (chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk])
    const end = this.buffered.indexOf(HEADER_END)
    if (end < 0 || this.pending === null) return
    const head = this.buffered.toString('latin1', 0, end)
    const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head)
    if (length === null) { this.fail('error:no-content-length'); return }
    const total = end + 4 + Number(length[1])
    if (this.buffered.length < total) return
    this.buffered = this.buffered.subarray(total)
    if (/\r\nconnection:[ \t]*close/i.test(head)) this.close()
    this.settle({ status: Number(head.slice(9, 12)) })
  }

  private fail (error: string): void {
    if (this.pending === null) return
    this.close()
    this.buffered = Buffer.alloc(0)
    this.settle({ error })
  }

  private settle (outcome: Outcome): void {
    clearTimeout(this.timer)
    const done = this.pending!
    this.pending = null
    done(outcome)
  }
}

/** Up to `size` connections to one server; a request waits for a free one (its wait counts as latency). */
export class RawPool {
  private readonly idle: Connection[] = []
  private readonly all: Connection[] = []
  private readonly waiting: Array<{ bytes: Buffer, done: (o: Outcome) => void }> = []

  constructor (host: string, port: number, size: number, private readonly timeoutMs: number) {
    for (let k = 0; k < size; k++) this.all.push(new Connection(host, port))
    this.idle.push(...this.all)
  }

  request (bytes: Buffer, done: (o: Outcome) => void): void {
    const connection = this.idle.pop()
    if (connection === undefined) { this.waiting.push({ bytes, done }); return }
    this.run(connection, bytes, done)
  }

  close (): void {
    for (const c of this.all) c.close()
  }

  private run (connection: Connection, bytes: Buffer, done: (o: Outcome) => void): void {
    connection.send(bytes, this.timeoutMs, (outcome) => {
      const next = this.waiting.shift()
      if (next !== undefined) this.run(connection, next.bytes, next.done)
      else this.idle.push(connection)
      done(outcome)
    })
  }
}
