// Where a request enters: Node's request listener. A path (`/…`, nearly every request) goes
// straight to the router; an absolute-form target (RFC 9112 §3.2.2) is served as its path; any
// other form (OPTIONS *) is answered 404 here, polka running middleware only for paths, with the
// same id, log and metrics as every request. A key in the path is taken off here, first (tawhiri/path-key.ts).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Polka } from 'polka'
import type { Logger } from '../logger.js'
import type { AloftRequest } from './context.js'
import { fail } from './fail.js'
import { HttpProblem } from './problem.js'
import type { RequestStart } from './request-start.js'
import { takePathKey } from './tawhiri/index.js'

const SLASH = 0x2f

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void

export function requestListener (
  router: Polka<AloftRequest>, begin: RequestStart['begin'], logger: Logger
): RequestListener {
  // polka's `next` is optional at run time: without it, errors go to onError.
  const dispatch = router.handler as unknown as (req: AloftRequest, res: ServerResponse) => void
  return (incoming, res) => {
    const req = incoming as AloftRequest
    const url = req.url ?? ''
    if (url.charCodeAt(0) !== SLASH) {
      const path = originForm(url)
      if (path === null) {
        req.path = url.slice(0, 200)
        try {
          begin(req, res, () => { throw new HttpProblem('not_found', { detail: `No resource ${req.path}.` }) })
        } catch (err) {
          fail(err, req, res, logger)
        }
        return
      }
      req.url = path
    }
    takePathKey(req)
    dispatch(req, res)
  }
}

/** The path and query of an absolute-form target (`http://host/path?q`), or null for any other form. */
function originForm (target: string): string | null {
  if (!/^https?:\/\//i.test(target) || !URL.canParse(target)) return null
  const url = new URL(target)
  return url.pathname + url.search
}
