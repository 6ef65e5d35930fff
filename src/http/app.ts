// The polka app. A request's life is in files of its own, read top to bottom:
//   request-target.ts   Node's listener: the target as a path
//   request-start.ts    id, headers, drain flag, open requests, write watch, a native route's slot
//                       of the instance's capacity (capacity.ts)
//   route-table.ts      the contract's route table in polka: 404, 405, one handler per route
//   route-handler.ts    one route: auth.ts (key and rate, or a token) and the caller's share of
//                       capacity.ts, or on a Tawhiri path its own admission (tawhiri/) → the JSON
//                       body (body/: read, parse, check), or an exact repeat's answer → routes/ → send.ts
//   request-metrics.ts  once the answer closes: its metric series and log line
//   fail.ts             where every error of a request ends (problems rendered by problem.ts)
// That is docs/DESIGN.md §3's order: route → key → rate → body → handler.
import type { Duplex } from 'node:stream'
import { type Listener, type RouteSpec, servedRoutes } from '../contract/index.js'
import { Capacity } from './capacity.js'
import { answerClientError, type ClientErrorAnswers } from './client-error.js'
import type { AppDeps } from './context.js'
import { requestMetrics } from './request-metrics.js'
import { requestStart } from './request-start.js'
import { type RequestListener, requestListener } from './request-target.js'
import { buildRouter, routeLookup } from './route-table.js'
import { ClientAddresses, TawhiriAdmission } from './tawhiri/index.js'

export interface App {
  /** The Node request listener. */
  handler: RequestListener
  /** The routes this instance serves (the admin route only with a token). */
  routes: readonly RouteSpec[]
  /** Set while shutting down: responses then ask clients to close the connection. */
  draining: boolean
  /** Requests not yet answered. */
  inFlight: () => number
  /** The server's 'clientError' listener: Node's own refusals answered, in their path's shape, logged and counted. */
  clientError: (err: NodeJS.ErrnoException, socket: Duplex) => void
  /** Stops the app's own timers (the write watch). */
  stop: () => void
}

export function createApp (deps: AppDeps, listener: Listener = 'service'): App {
  const routes = servedRoutes(deps.config.adminToken, { listener, metricsPort: deps.config.metricsPort })
  const lookup = routeLookup(routes)
  const metrics = requestMetrics(deps.metrics, deps.logger, lookup.operationOf)
  const { config } = deps
  const capacity = new Capacity({ maxInFlight: config.maxInFlight, perCaller: config.maxInFlightPerAccount,
    publicShare: config.publicTawhiri?.inFlightShare })
  const tawhiri = new TawhiriAdmission(deps, capacity, new ClientAddresses(config.trustedProxies))
  if (listener === 'service') deps.metrics.readCapacity(() => ({ ...capacity.state, waiting: tawhiri.waiting }))
  const start = requestStart(deps, capacity, lookup, metrics.ended)
  const router = buildRouter(routes, lookup, start.begin, deps, { capacity, tawhiri })
  const clientErrors: ClientErrorAnswers = { refusalOf: lookup.refusalOf, answered: metrics.clientErrorAnswered }
  return {
    handler: requestListener(router, start.begin, deps.logger),
    routes,
    // the flag lives with the stage that reads it on every request
    get draining () { return start.draining },
    set draining (value) { start.draining = value },
    inFlight: start.inFlight,
    clientError: (err, socket) => answerClientError(err, socket, clientErrors),
    stop: start.stop
  }
}
