// A key in the path (`/k/<key>/tawhiri?…`, docs/DESIGN.md §9) for clients that cannot send a
// header. It is taken off the target before anything reads it, so the key never reaches a log
// line, a metrics label, a problem body or a 404's detail: everything after sees `/tawhiri?…`.
// Found as a browser would send it: a base URL ending in `/` joined to `/k/…` makes `//k/…`, and
// dot segments (`/./k/…`, `/x/../k/…`, `/k/./…`) are resolved first (docs/DESIGN.md §10); the key
// is percent-decoded before it is checked. Any other shape (`/K/…`) is no key path; its key is
// redacted wherever the path is logged or echoed.
import { KEY_PATH_PREFIX } from '../../contract/index.js'
import type { AloftRequest } from '../context.js'

/** Where a `/k/<key>` without a path after it is sent: no route, and nothing of the key. */
const NO_PATH = '/k/-'

/** Moves a path key from `req.url` to `req.pathKey`. */
export function takePathKey (req: AloftRequest): void {
  const taken = splitPathKey(req.url ?? '')
  if (taken === null) return
  req.pathKey = taken.key
  req.url = taken.url
}

/** A target's key in the path and the target without it, or null for a target without one. */
export function splitPathKey (url: string): { key: string, url: string } | null {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  // the common case, a plain path, costs one search here and one comparison below
  const keyed = /\/\/|\/\.\.?(\/|$)/.test(path) ? keyPathOf(path) : path
  if (!keyed.startsWith(KEY_PATH_PREFIX)) return null
  const rest = keyed.slice(KEY_PATH_PREFIX.length) + (query === -1 ? '' : url.slice(query))
  const end = rest.search(/[/?#]/)
  const segment = end === -1 ? rest : rest.slice(0, end)
  const after = end === -1 ? '' : rest.slice(end)
  return { key: decodeSegment(segment), url: after.startsWith('/') ? after : NO_PATH + after }
}

/** The path with its dot segments resolved (RFC 3986 §5.2.4) and the empty segments before the first dropped. */
function keyPathOf (path: string): string {
  const out: string[] = []
  const segments = path.split('/').slice(1)
  for (const [k, seg] of segments.entries()) {
    if (seg === '.' || seg === '..') {
      if (seg === '..') out.pop()
      if (k === segments.length - 1) out.push('')
    } else if (seg !== '' || out.length > 0) {
      out.push(seg)
    }
  }
  return `/${out.join('/')}`
}

/** The segment as sent, or percent-decoded when it decodes (a key has no characters to escape). */
function decodeSegment (segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
