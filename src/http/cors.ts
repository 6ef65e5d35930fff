// CORS for the routes any origin may read (RouteSpec.cors; docs/DESIGN.md §9): a page served
// elsewhere, such as the SondeHub predictor, calls them with fetch or jQuery. The answers carry
// Access-Control-Allow-Origin (route-handler.ts); a preflight (OPTIONS) is answered here, allowing
// the X-API-Key header, so a page may send a key without putting it in the path. Key and operator
// routes have none of this: a browser page has no business with them.
import type { ServerResponse } from 'node:http'
import { allowValue, type Method, type RouteSpec } from '../contract/index.js'
import type { AloftRequest } from './context.js'

/** Headers a page may read from an answer: the wait a refusal asks for, the bucket, a download's name. */
export const CORS_READ_HEADERS = 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, ' +
  'Content-Disposition, X-Request-Id'

/** The headers that let a page on any origin read an answer (its refusals too). */
export const ANY_ORIGIN_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': CORS_READ_HEADERS
}

/** Sets ANY_ORIGIN_HEADERS on an answer. */
export function allowAnyOrigin (res: ServerResponse): void {
  for (const [name, value] of Object.entries(ANY_ORIGIN_HEADERS)) res.setHeader(name, value)
}

/** The operation label (metrics, logs) of a preflight. */
export const CORS_PREFLIGHT = 'cors_preflight'

/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE_S = 86_400

/** Each path with a CORS route, and the methods its routes take. */
export function corsPaths (routes: readonly RouteSpec[]): Map<string, Method[]> {
  const paths = new Map<string, Method[]>()
  for (const r of routes) {
    if (!r.cors) continue
    const methods = paths.get(r.path) ?? []
    methods.push(r.method)
    paths.set(r.path, methods)
  }
  return paths
}

/** The answer to a preflight: any origin, the path's methods, X-API-Key and Content-Type allowed. */
export function preflight (methods: Method[]) {
  const allow = `${allowValue(methods)}, OPTIONS`
  return (req: AloftRequest, res: ServerResponse): void => {
    req.routeId = CORS_PREFLIGHT
    res.statusCode = 204
    res.setHeader('Access-Control-Allow-Origin', '*')
    res.setHeader('Access-Control-Allow-Methods', allow)
    res.setHeader('Access-Control-Allow-Headers', 'X-API-Key, Content-Type')
    res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_S)
    res.setHeader('Allow', allow)
    res.end()
  }
}
