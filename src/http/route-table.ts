// The contract's route table wired into polka: request-start.ts first for every request, one
// handler per route (route-handler.ts), a 404 or 405 (with Allow) for what no route takes, and
// every error to the one sink (fail.ts). Also the operation a method and path name, for the
// metrics of requests no handler took.
import type { ServerResponse } from 'node:http'
import polka, { type Polka } from 'polka'
import { parse as parsePattern } from 'regexparam'
import { allowValue, type RouteSpec } from '../contract/index.js'
import type { AloftRequest, AppDeps, RefusalShape } from './context.js'
import { fail } from './fail.js'
import { repeatCaches, routeHandlers } from './handlers.js'
import { HttpProblem } from './problem.js'
import { type RequestStart, type RouteShapes, shapeRefusal } from './request-start.js'
import { type Admissions, routeHandler } from './route-handler.js'
import { CORS_PREFLIGHT, corsPaths, preflight } from './cors.js'

/** The metrics and log label of a request no operation takes (a 404 or 405: the status tells which). */
export const UNMATCHED_ROUTE = 'unmatched'

/** The served routes matched by method and path, with polka's own patterns. */
export interface RouteLookup extends RouteShapes {
  /**
   * The operation id a request's method and path name, whether or not its handler ran (a 503 at
   * capacity is still counted under its operation): the one style of the `route` label.
   */
  operationOf: (req: AloftRequest) => string
  /** The 404, or the 405 with the path's `Allow`, of a request no route takes, in the shape its path calls for. */
  noMatch: (req: AloftRequest, res: ServerResponse) => never
}

const NO_SHAPE: RefusalShape = { cors: false }
const TAWHIRI_SHAPE: RefusalShape = { cors: true, dialect: 'tawhiri' }

export function routeLookup (routes: readonly RouteSpec[]): RouteLookup {
  const matchers = routes.map((r) => ({ route: r, pattern: parsePattern(r.path).pattern }))
  const routeOf = (path: string): RouteSpec | undefined => matchers.find((m) => m.pattern.test(path))?.route
  // a Tawhiri path and any path under it (polka's pattern, loose: `/tawhiri/x`, not `/tawhirix`)
  const underTawhiri = routes.filter((r) => r.dialect === 'tawhiri').map((r) => parsePattern(r.path, true).pattern)
  /**
   * A path's route, whatever the method, shapes its refusals; so does a Tawhiri path for the paths under it,
   * which a page built on a Tawhiri base URL may ask for (docs/DESIGN.md §10).
   */
  const refusalOf = (path: string): RefusalShape => {
    const route = routeOf(path)
    if (route !== undefined) return { cors: route.cors, dialect: route.dialect }
    return underTawhiri.some((p) => p.test(path)) ? TAWHIRI_SHAPE : NO_SHAPE
  }
  return {
    refusalOf,
    admittedLater: tawhiriPaths(matchers),
    operationOf: (req) =>
      matchers.find((m) => m.route.method === req.method && m.pattern.test(req.path))?.route.operationId ??
        (req.method === 'OPTIONS' && matchers.some((m) => m.route.cors && m.pattern.test(req.path))
          ? CORS_PREFLIGHT
          : UNMATCHED_ROUTE),
    noMatch: (req, res) => {
      shapeRefusal(req, res, refusalOf(req.path))
      const allowed = matchers.filter((m) => m.pattern.test(req.path)).map((m) => m.route.method)
      if (allowed.length === 0) {
        throw new HttpProblem('not_found', { detail: `No route ${req.method} ${req.path.slice(0, 200)}.` })
      }
      const allow = allowValue(allowed)
      throw new HttpProblem('method_not_allowed', { detail: `${req.path} takes ${allow}.`, headers: { Allow: allow } })
    }
  }
}

/**
 * Whether a path is a Tawhiri path, by the patterns polka routes with (any case, a trailing slash
 * or not: `/TAWHIRI/` reaches the Tawhiri handler and must take its slot there too): one regular
 * expression of them all, one test per request.
 */
function tawhiriPaths (matchers: Array<{ route: RouteSpec, pattern: RegExp }>): { test: (path: string) => boolean } {
  const tawhiri = matchers.filter((m) => m.route.dialect === 'tawhiri')
  const all = new RegExp(tawhiri.map((m) => m.pattern.source).join('|'), 'i')
  if (tawhiri.some((m) => !m.pattern.flags.includes('i'))) throw new Error('polka\'s patterns have changed their case')
  return { test: (path) => all.test(path) }
}

/** The router: `begin` (request-start.ts), then each route's handler. */
export function buildRouter (
  routes: readonly RouteSpec[], lookup: RouteLookup, begin: RequestStart['begin'], deps: AppDeps, admissions: Admissions
): Polka<AloftRequest> {
  const router = polka<AloftRequest>({
    onError: (err, req, res) => fail(err, req, res, deps.logger),
    onNoMatch: lookup.noMatch
  })
  router.use(begin)
  const handlers = routeHandlers(deps, routes)
  const repeats = repeatCaches(deps)
  for (const route of routes) {
    const handle = handlers[route.operationId]
    if (handle === undefined) throw new Error(`no handler for ${route.operationId}`)
    const method = route.method.toLowerCase() as 'get' | 'post' | 'delete'
    router[method](route.path, routeHandler(route, handle, deps, admissions, repeats[route.operationId]))
  }
  for (const [path, methods] of corsPaths(routes)) router.options(path, preflight(methods))
  return router
}
