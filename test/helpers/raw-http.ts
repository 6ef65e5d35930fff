// One HTTP/1.1 connection held by the test itself, over a raw socket: which connection a request
// travels on, and what became of it (answered, closed, reset, refused), is then the test's to see —
// what fetch's pool hides. Answers are read as far as their Content-Length.
import { connect, type Socket } from 'node:net'

export interface RawAnswer {
  status: number
  /** Header names lower-cased; the last value of a repeated one. */
  headers: Record<string, string>
  body: string
}

/** How a connection ended: closed by the server (FIN), reset, or refused before it opened. */
export type RawEnd = 'closed' | 'reset' | 'refused' | 'open'

export class RawConnection {
  readonly socket: Socket
  /** Resolves once the socket is connected; rejects when it was refused. */
  readonly opened: Promise<void>
  /** How the connection ended, once it has. */
  readonly ended: Promise<RawEnd>
  #end: RawEnd = 'open'
  #buffered = Buffer.alloc(0)
  #waiting: ((answer: RawAnswer | Error) => void) | null = null

  constructor (port: number, host = '127.0.0.1') {
    this.socket = connect({ port, host })
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve())
      this.socket.once('error', reject)
    })
    this.opened.catch(() => {})
    this.ended = new Promise((resolve) => {
      this.socket.on('error', (err: NodeJS.ErrnoException) => {
        this.#end = err.code === 'ECONNREFUSED' ? 'refused' : err.code === 'ECONNRESET' ? 'reset' : 'closed'
      })
      this.socket.on('close', () => {
        if (this.#end === 'open') this.#end = 'closed'
        this.#fail(new Error(`connection ${this.#end} before a whole answer`))
        resolve(this.#end)
      })
    })
    this.socket.on('data', (chunk: Buffer) => {
      this.#buffered = Buffer.concat([this.#buffered, chunk])
      this.#read()
    })
  }

  /** How it ended so far ('open' while it is). */
  get state (): RawEnd { return this.#end }

  /** Writes raw bytes (part of a request, for a request still being sent). */
  write (text: string | Buffer): void {
    this.socket.write(text)
  }

  /** Sends a whole request (or its end, when `text` completes one begun by write) and waits for the answer. */
  async request (text: string | Buffer = ''): Promise<RawAnswer> {
    const answer = new Promise<RawAnswer>((resolve, reject) => {
      this.#waiting = (a) => a instanceof Error ? reject(a) : resolve(a)
    })
    if (text.length > 0) this.socket.write(text)
    this.#read()
    return await answer
  }

  /** Waits for the answer to a request already written. */
  async answer (): Promise<RawAnswer> {
    return await this.request('')
  }

  destroy (): void {
    this.socket.destroy()
  }

  #read (): void {
    if (this.#waiting === null) return
    const end = this.#buffered.indexOf('\r\n\r\n')
    if (end < 0) return
    const lines = this.#buffered.toString('latin1', 0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const total = end + 4 + Number(headers['content-length'] ?? 0)
    if (this.#buffered.length < total) return
    const body = this.#buffered.toString('utf8', end + 4, total)
    this.#buffered = this.#buffered.subarray(total)
    const done = this.#waiting
    this.#waiting = null
    done({ status: Number(lines[0].split(' ')[1]), headers, body })
  }

  #fail (err: Error): void {
    const done = this.#waiting
    this.#waiting = null
    done?.(err)
  }
}

/** A GET of `path` on a kept-alive connection. */
export function get (path: string, headers: Record<string, string> = {}): string {
  return `GET ${path} HTTP/1.1\r\nHost: aloft\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
}

/** The head of a POST whose body of `length` bytes is sent separately. */
export function postHead (path: string, length: number, headers: Record<string, string> = {}): string {
  return `POST ${path} HTTP/1.1\r\nHost: aloft\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n` +
    `${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`
}
