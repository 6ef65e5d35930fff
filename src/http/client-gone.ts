// A client that left (docs/DESIGN.md §10): nothing more is computed for it. Its request is
// dropped where it waits, checked before its handler runs, and a long computation (a flight)
// stops at its next turn; the answer it never read is logged and counted as 499, as nginx's
// "client closed request" is.
import type { ServerResponse } from 'node:http'

/** The client went away before its answer was sent: nobody is left to answer. */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError'
}

/** The status logged and counted for a request whose client left before its answer ended. */
export const CLIENT_CLOSED_REQUEST = 499

/**
 * Throws ClientGoneError when the client has left (before work begins or a slot is taken for it):
 * Node destroys the response when its connection closes.
 */
export function stillWanted (res: ServerResponse): void {
  if (res.destroyed) throw new ClientGoneError('the client closed the connection before its request was handled')
}

/**
 * A signal aborted, with a ClientGoneError, when the client leaves before its answer is sent:
 * for work that runs in many turns (a flight) to stop at its next one.
 */
export function goneSignal (res: ServerResponse): AbortSignal {
  const controller = new AbortController()
  const gone = new ClientGoneError('the client closed the connection while its answer was computed')
  if (res.destroyed) controller.abort(gone)
  else res.once('close', () => { if (!res.writableFinished) controller.abort(gone) })
  return controller.signal
}
