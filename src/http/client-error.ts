// What Node's HTTP server cannot hand to the app (a request too slow to arrive, bytes that are not
// HTTP, a header section over the limit) it answers itself with a bare status line. Answered here
// instead, as every other refusal is: a problem document, then the connection closed.
import type { Duplex } from 'node:stream'
import { STATUS_CODES } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { ProblemCodeName } from '../contract/index.js'
import { HttpProblem, problemBody } from './problem.js'

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

/** The whole HTTP/1.1 response carrying the problem, closing the connection. */
export function clientErrorResponse (problem: HttpProblem, requestId: string = randomUUID()): string {
  const json = JSON.stringify(problemBody(problem, requestId))
  return `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    Object.entries(problem.options.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    `Content-Length: ${Buffer.byteLength(json)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' + json
}

/** How long an answered socket may take to send the answer before it is destroyed anyway. */
const LINGER_MS = 2000

/** Told of each answer sent here (its log line and metrics: these never reach the app's router). */
export type ClientErrorListener = (problem: HttpProblem, requestId: string) => void

/**
 * The server's 'clientError' listener, as Node's own default: an answer only when the socket can
 * still take one and no response to a request on it has started; then the socket is closed.
 */
export function answerClientError (err: NodeJS.ErrnoException, socket: Duplex, answered?: ClientErrorListener): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } | null })._httpMessage
  const problem = clientErrorProblem(err)
  if (problem === null || !socket.writable || (inFlight != null && inFlight.headersSent)) {
    socket.destroy()
    return
  }
  const requestId = randomUUID()
  answered?.(problem, requestId)
  // ended, not destroyed at once: destroying could drop the answer before it is written
  const timer = setTimeout(() => socket.destroy(), LINGER_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  socket.end(clientErrorResponse(problem, requestId))
}
