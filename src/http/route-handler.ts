// One route's handler as polka runs it, after request-start.ts: the caller (auth.ts, and the
// caller's share of the instance: capacity.ts; on a Tawhiri path its own admission, which takes
// the slot too) → the JSON body (body/: read, parse, check), an exact repeat answered from the
// route's repeat cache → the route's own handler (routes/), unless its client has left → the answer
// (send.ts), kept for repeats when the handler says it may be. Any error thrown goes to fail.ts.
import type { ServerResponse } from 'node:http'
import { compileSerializer, type RouteSpec } from '../contract/index.js'
import type { ResponseCache } from '../profile/index.js'
import { type Capacity, callerFull } from './capacity.js'
import { stillWanted } from './client-gone.js'
import { HttpProblem } from './problem.js'
import { allowAnyOrigin } from './cors.js'
import { callerAccount, checkToken } from './auth.js'
import { checkBody, parseJsonBytes, readJsonBytes } from './body/index.js'
import type { AloftRequest, AppDeps, Handler } from './context.js'
import { send, sendBody } from './send.js'
import type { TawhiriAdmission } from './tawhiri/index.js'

export type RouteHandler = (req: AloftRequest, res: ServerResponse) => Promise<void>

/** What admits a route's caller: the instance's capacity, and on the Tawhiri paths their own admission. */
export interface Admissions { capacity: Capacity, tawhiri: TawhiriAdmission }

/**
 * @param kept the route's cache of answers to exact repeats of a body (the profile route's), if any
 */
export function routeHandler (
  route: RouteSpec, handle: Handler<never>, deps: AppDeps, admissions: Admissions, kept: ResponseCache | undefined
): RouteHandler {
  // The stores take one rate token per admission; a costlier route needs them to take more.
  if (route.admissionCost > 1) {
    throw new Error(`${route.operationId}: admission costs above 1 token are not supported`)
  }
  // V8's JSON.stringify formats each number straight into its output, where a compiled serializer makes
  // a string of each: a fresh profile's hundred doubles take half the time. Order is what the compiled
  // serializer adds, so a route whose answers are built in schema order needs only JSON.stringify.
  const { schema, builtInOrder } = route.success
  const serialize = schema === undefined || builtInOrder === true ? JSON.stringify : compileSerializer(schema)
  const config = deps.config
  return async (req, res) => {
    req.routeId = route.operationId
    if (route.cors) allowAnyOrigin(res)
    if (route.dialect !== undefined) req.dialect = route.dialect
    else if (req.pathKey !== undefined) throw new HttpProblem('not_found', { detail: keyPathOnly(req) })
    let accountId = ''
    if (route.dialect === 'tawhiri') {
      accountId = await admissions.tawhiri.admit(route, req, res)
    } else {
      if (route.auth === 'api_key') accountId = await callerAccount(route, req, res, deps)
      else checkToken(route, req, config)
      const { capacity } = admissions
      if (accountId !== '' && !capacity.holdCaller(accountId, res)) {
        throw callerFull(capacity.heldBy(accountId), accountId)
      }
    }
    let body: unknown
    let bytes: Buffer | undefined
    let generation = 0
    // a route taking other media types than JSON reads and checks its body itself
    if (route.body !== undefined && route.body.mediaTypes === undefined) {
      bytes = await readJsonBytes(req, route.body.limitBytes)
      if (kept !== undefined && bytes !== undefined) {
        const answer = kept.get(bytes)
        if (answer !== undefined) {
          sendBody(res, route.success.status, 'application/json', answer)
          return
        }
        generation = kept.generation()
      }
      body = checkBody(parseJsonBytes(bytes), route.body)
    }
    stillWanted(res)
    // `body` is what the route's schema validated: the body type its handler declares.
    const reply = await handle({ req, res, body: body as never, accountId, params: req.params })
    if (reply.streamed === true) return
    const answer = send(res, reply, route.success.status, serialize)
    if (reply.sharable === true && kept !== undefined && bytes !== undefined) kept.set(bytes, answer, generation)
  }
}

/** A key in the path is for the Tawhiri paths only; the detail names the path without it. */
function keyPathOnly (req: AloftRequest): string {
  return `No route ${req.method} /k/…${req.path.slice(0, 200)}: a key in the path is taken by the Tawhiri paths ` +
    '(/api/v1/, /tawhiri, /api/datasetcheck, /api/ruaumoko/) only; send it in the X-API-Key header here.'
}
