// What Node's HTTP server cannot hand to the app (a request too slow to arrive, bytes that are not
// HTTP, a header section over the limit) it answers itself with a bare status line. Answered here
// instead, as every other refusal is: a problem document, or when the request line was read and
// its path calls for it Tawhiri's shape with CORS (docs/DESIGN.md §10), then the connection closed.
import type { Duplex } from 'node:stream'
import { STATUS_CODES } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { ProblemCodeName } from '../contract/index.js'
import type { RefusalShape } from './context.js'
import { ANY_ORIGIN_HEADERS } from './cors.js'
import { HttpProblem, problemBody } from './problem.js'
import { splitPathKey, tawhiriErrorBody } from './tawhiri/index.js'

/** The problem for one of Node's client errors, or null when nobody is left to answer (a reset). */
export function clientErrorProblem (err: NodeJS.ErrnoException): HttpProblem | null {
  const code = err.code ?? ''
  if (code === 'ECONNRESET' || code === 'EPIPE') return null
  const [name, detail]: [ProblemCodeName, string] =
    code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'The request did not arrive in time; the connection is closed.']
      : code === 'HPE_HEADER_OVERFLOW'
        ? ['header_fields_too_large', 'The header section is larger than 16 KiB.']
        : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? ['payload_too_large', 'The chunk extensions are too large.']
          : ['malformed_request', `The request is not HTTP/1.1 aloft can read (${err.message.slice(0, 120)}).`]
  return new HttpProblem(name, { detail })
}

/** A refusal's shape when nothing of the request could be read: a problem document. */
const UNREAD: RefusalShape = { cors: false }

/** The whole HTTP/1.1 response carrying the problem in the shape given, closing the connection. */
export function clientErrorResponse (
  problem: HttpProblem, requestId: string = randomUUID(), shape: RefusalShape = UNREAD
): string {
  const now = Date.now()
  const tawhiri = shape.dialect === 'tawhiri' ? tawhiriErrorBody(problem, now, now) : null
  const status = tawhiri?.status ?? problem.status
  const json = tawhiri?.json ?? JSON.stringify(problemBody(problem, requestId))
  const headers = { ...problem.options.headers, ...(shape.cors ? ANY_ORIGIN_HEADERS : {}) }
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
    `Content-Type: ${tawhiri === null ? 'application/problem+json' : 'application/json'}\r\n` +
    'X-Content-Type-Options: nosniff\r\n' +
    Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    `Content-Length: ${Buffer.byteLength(json)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' + json
}

/**
 * The path (its key taken off: tawhiri/path-key.ts) of the request the parser refused, when its
 * request line is among the bytes the parser held at the error: the read that failed, as a request
 * written at once (by a browser, by nginx) arrives. After an earlier request on the connection, the
 * line after the last blank line; a line that came in an earlier read is not there (null).
 */
export function refusedPath (err: ParserError): string | null {
  if (!Buffer.isBuffer(err.rawPacket)) return null
  const read = err.rawPacket.toString('latin1', 0, err.bytesParsed ?? err.rawPacket.length)
  const start = read.lastIndexOf('\r\n\r\n')
  const target = REQUEST_LINE.exec(start === -1 ? read : read.slice(start + 4))?.[1]
  if (target === undefined) return null
  const url = splitPathKey(target)?.url ?? target
  return url.slice(0, url.search(/[?#]|$/))
}

/** Node's parser error: the bytes it held (`rawPacket`) and how far into them it read. */
type ParserError = NodeJS.ErrnoException & { rawPacket?: unknown, bytesParsed?: number }

const REQUEST_LINE = /^[A-Z]+ (\/\S*) HTTP\/1\.[01]\r\n/

/** How long an answered socket may take to send the answer before it is destroyed anyway. */
const LINGER_MS = 2000

/** What answers Node's client errors needs of the app. */
export interface ClientErrorAnswers {
  /** How a refusal on a path is shaped (route-table.ts). */
  refusalOf: (path: string) => RefusalShape
  /** Told of each answer sent here (its log line and metrics: these never reach the app's router). */
  answered: (problem: HttpProblem, requestId: string) => void
}

/**
 * The server's 'clientError' listener, as Node's own default: an answer only when the socket can
 * still take one and no response to a request on it has started; then the socket is closed.
 */
export function answerClientError (err: NodeJS.ErrnoException, socket: Duplex, answers: ClientErrorAnswers): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } | null })._httpMessage
  const problem = clientErrorProblem(err)
  if (problem === null || !socket.writable || (inFlight != null && inFlight.headersSent)) {
    socket.destroy()
    return
  }
  const requestId = randomUUID()
  answers.answered(problem, requestId)
  const path = refusedPath(err)
  // ended, not destroyed at once: destroying could drop the answer before it is written
  const timer = setTimeout(() => socket.destroy(), LINGER_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  socket.end(clientErrorResponse(problem, requestId, path === null ? UNREAD : answers.refusalOf(path)))
}
