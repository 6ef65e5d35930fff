// The error sink: every error of a request ends here (polka's onError, and the app's own answer
// to a target that is no path), whether a problem to render, a client gone, a failure after the
// answer started or a bug. Nothing thrown here may escape: the process keeps serving. A Tawhiri
// path's refusals take Tawhiri's shape (tawhiri/error.ts).
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from '../logger.js'
import { declaresBody } from './body/index.js'
import { ClientGoneError } from './client-gone.js'
import type { AloftRequest } from './context.js'
import { HttpProblem, problemBody, sendProblem } from './problem.js'
import { sendTawhiriError } from './tawhiri/index.js'

export function fail (err: unknown, req: AloftRequest, res: ServerResponse, logger: Logger): void {
  try {
    if (err instanceof ClientGoneError) {
      logger.debug({ request_id: req.id, reason: err.message }, 'the client went away')
      res.destroy()
      return
    }
    if (res.headersSent) {
      logger.error({ err, request_id: req.id }, 'error after the response started')
      res.destroy()
      return
    }
    // A refusal before the body has all arrived closes the connection: keeping it would mean reading
    // the rest only to throw it away, and a client that never sends it would later get a second answer.
    if (!req.complete && declaresBody(req)) {
      res.setHeader('Connection', 'close')
      lingerOnClose(req.socket)
    }
    const send = req.dialect === 'tawhiri' ? sendTawhiriError : (r: ServerResponse, p: HttpProblem) => {
      sendProblem(r, p, req.id)
    }
    if (err instanceof HttpProblem) {
      send(res, err, req)
      return
    }
    logger.error({ err, request_id: req.id, path: req.path }, 'unexpected error')
    send(res, internalError(req.id), req)
  } catch (renderErr) {
    logger.error({ err: renderErr, cause: err, request_id: req.id }, 'a problem could not be rendered')
    if (res.headersSent) {
      res.destroy()
      return
    }
    res.statusCode = 500
    res.setHeader('Content-Type', 'application/problem+json')
    res.end(JSON.stringify(problemBody(internalError(req.id), req.id)))
  }
}

/** How long a refused request's connection keeps reading (and dropping) what its client still sends. */
const LINGER_MS = 2000

/**
 * A socket closed while its client is still sending resets: the client's system may throw the
 * answer away unread (a 413 reached fetch as "connection reset"). So the answer's end only ends our
 * side (FIN); what still arrives is read and dropped until the client closes, or LINGER_MS passes.
 */
function lingerOnClose (socket: Socket): void {
  socket.destroySoon = function (this: Socket) {
    if (this.writable) this.end()
    const timer = setTimeout(() => this.destroy(), LINGER_MS)
    timer.unref()
    this.once('close', () => clearTimeout(timer))
    this.once('end', () => this.destroy())
  }
}

function internalError (requestId: string): HttpProblem {
  return new HttpProblem('internal_error', { detail: `Something failed inside aloft; quote request id ${requestId}.` })
}
