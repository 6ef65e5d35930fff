// What a route handler receives and returns; the app does everything around it (request id,
// authentication, rate limit, body, validation, serialisation, errors, logs, metrics).
import type { Request } from 'polka'
import type { ServerResponse } from 'node:http'
import type { AccountStore } from '../accounts/index.js'
import type { Config } from '../config/index.js'
import type { HostProcesses } from '../contract/index.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import type { ProfileService } from '../profile/index.js'
import type { SamplesEngine } from '../samples/index.js'
import type { Source } from '../source/index.js'
import type { Field } from '../field/index.js'
import type { TrajectoryService } from '../trajectory/index.js'

export interface AloftRequest extends Request {
  id: string
  started: bigint
  /** Operation id of the matched route (metrics label). */
  routeId?: string
  accountId?: string
  /** A key given in the path (`/k/<key>/…`), taken off the target before anything read it (path-key.ts). */
  pathKey?: string
  /** The route answers its errors in Tawhiri's shape (RouteSpec.dialect). */
  dialect?: 'tawhiri'
  /** The write watch cut the answer off (a client reading nothing), as opposed to a client that left. */
  cutOff?: boolean
}

/**
 * How a refusal is shaped that no route's handler shapes (a 404, a 405, a 503 before the route ran,
 * Node's own 431): by its path, whatever the method (route-table.ts `refusalOf`).
 */
export interface RefusalShape {
  /** Any origin may read it (cors.ts). */
  cors: boolean
  dialect?: 'tawhiri'
}

export interface Reply {
  status?: number
  body: unknown
  /** JSON unless said otherwise. */
  mediaType?: string
  headers?: Record<string, string | number>
  /** The handler has written the whole answer itself (a streamed route). */
  streamed?: true
  /** The same answer for every caller sending these body bytes: it may be kept for exact repeats. */
  sharable?: boolean
}

export interface HandlerContext<Body = unknown> {
  req: AloftRequest
  res: ServerResponse
  /** The validated body (routes with a body schema). */
  body: Body
  /** The authenticated account (routes with `api_key` security). */
  accountId: string
  params: Record<string, string>
}

export type Handler<Body = unknown> = (ctx: HandlerContext<Body>) => Promise<Reply> | Reply

/**
 * Handlers by operation id. Each takes its own body type; the app hands it the body its route's
 * schema validated, so the table keeps them with the body type left open.
 */
export type Handlers = Record<string, Handler<never>>

export interface AppDeps {
  config: Config
  store: AccountStore
  logger: Logger
  metrics: Metrics
  /** The data path; absent, the profile route answers 503. */
  profiles?: ProfileService
  /** The bulk samples engine; absent, the samples route answers 503. */
  samples?: SamplesEngine
  /** The trajectory predictor; absent, the trajectory routes answer 503. */
  trajectories?: TrajectoryService
  source?: Source
  /** Decoded data and the worker pool (readiness asks the pool). */
  field?: Field
  /** Milliseconds since the epoch; injectable for the allowance day boundary. */
  now?: () => number
  /** The host's processes, when several serve it (src/cluster): readiness reports them. */
  host?: () => HostProcesses
}
