// A key in the path (`/k/<key>/tawhiri?…`, docs/DESIGN.md §9) for clients that cannot send a
// header. It is taken off the target before anything reads it, so the key never reaches a log
// line, a metrics label, a problem body or a 404's detail: everything after sees `/tawhiri?…`.
import { KEY_PATH_PREFIX } from '../contract/index.js'
import type { AloftRequest } from './context.js'

/** Where a `/k/<key>` without a path after it is sent: no route, and nothing of the key. */
const NO_PATH = '/k/-'

/** Moves a path key from `req.url` to `req.pathKey`. */
export function takePathKey (req: AloftRequest): void {
  const url = req.url ?? ''
  if (!url.startsWith(KEY_PATH_PREFIX)) return
  const rest = url.slice(KEY_PATH_PREFIX.length)
  const end = rest.search(/[/?#]/)
  const segment = end === -1 ? rest : rest.slice(0, end)
  const after = end === -1 ? '' : rest.slice(end)
  req.pathKey = decodeSegment(segment)
  req.url = after.startsWith('/') ? after : NO_PATH + after
}

/** The segment as sent, or percent-decoded when it decodes (a key has no characters to escape). */
function decodeSegment (segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
