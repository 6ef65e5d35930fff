// The polka app: routes from the contract's route table, one wrapper that does everything
// around a handler in docs/DESIGN.md §3's order (route → key → rate → body → handler), one
// problem renderer.
import polka from 'polka'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { randomUUID } from 'node:crypto'
import { parse as parsePattern } from 'regexparam'
import {
  allowValue, servedRoutes, type Listener, type RouteSpec, validate, buildOpenApi, compileSerializer, type Serializer
} from '../contract/index.js'
import { HttpProblem, problemBody, sendProblem } from './problem.js'
import { ClientGoneError, parseJsonBytes, readJsonBytes } from './body.js'
import type { ClientErrorListener } from './client-error.js'
import type { ResponseCache } from '../profile/index.js'
import { admit, authenticate, checkAdmin, checkBearer } from './auth.js'
import { WriteWatch } from './write-watch.js'
import type { AloftRequest, AppDeps, Handlers, Reply } from './context.js'
import { accountHandlers } from './routes/accounts.js'
import { metaHandlers } from './routes/meta.js'
import { profileHandlers } from './routes/profile.js'
import { samplesHandlers } from './routes/samples.js'
import { trajectoryHandlers } from './routes/trajectory.js'
import { explorerHandlers } from './routes/explorer.js'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
/** The metrics and log label of a request no operation takes (a 404 or 405: the status tells which). */
export const UNMATCHED_ROUTE = 'unmatched'
/** Answered even at capacity: a liveness probe must not fail because the service is busy. */
const ALWAYS_ANSWERED = new Set(['/healthz'])

export interface App {
  /** The Node request listener. */
  handler: (req: import('node:http').IncomingMessage, res: ServerResponse) => void
  /** The routes this instance serves (the admin route only with a token). */
  routes: readonly RouteSpec[]
  /** Set while shutting down: responses then ask clients to close the connection. */
  draining: boolean
  /** Requests not yet answered. */
  inFlight: () => number
  /** Logs and counts an answer Node's parser made us send before any request existed (client-error.ts). */
  clientErrorAnswered: ClientErrorListener
  /** Stops the app's own timers (the write watch). */
  stop: () => void
}

export function createApp (deps: AppDeps, listener: Listener = 'service'): App {
  const { config, logger, metrics } = deps
  const routes = servedRoutes(config.adminToken, { listener, metricsPort: config.metricsPort })
  const openapi = JSON.stringify(buildOpenApi(routes))
  const handlers: Handlers = {
    ...metaHandlers(deps, openapi),
    ...accountHandlers(deps),
    ...profileHandlers(deps),
    ...samplesHandlers(deps),
    ...trajectoryHandlers(deps),
    ...explorerHandlers()
  }
  const matchers = routes.map((r) => ({ route: r, pattern: parsePattern(r.path).pattern }))
  /** Routes whose answers to exact repeats are kept, by operation id. */
  const repeats: Record<string, ResponseCache | undefined> = { get_atmospheric_profile: deps.profiles?.responses }
  /**
   * The operation id a request's method and path name, whether or not its handler ran (a 503 at
   * capacity is still counted under its operation): the one style of the `route` label.
   */
  const operationOf = (req: AloftRequest): string =>
    matchers.find((m) => m.route.method === req.method && m.pattern.test(req.path))?.route.operationId ??
      UNMATCHED_ROUTE
  let inFlight = 0
  /** Requests under way per account (ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT). */
  const accountInFlight = new Map<string, number>()
  const writes = new WriteWatch(config.writeTimeoutMs, (res, queued) => {
    metrics.httpCutOff.labels('write_stalled').inc()
    logger.warn({ request_id: (res.req as AloftRequest).id, queued_bytes: queued, timeout_ms: config.writeTimeoutMs },
      'an answer waited on a client that read none of it: connection closed')
  })

  const app: App = {
    handler: undefined as unknown as App['handler'],
    routes,
    draining: false,
    inFlight: () => inFlight,
    stop: () => writes.close(),
    clientErrorAnswered: (problem, requestId) => {
      seriesOf(UNMATCHED_ROUTE, UNPARSED_METHOD, problem.status).count()
      logger.info({ request_id: requestId, route: UNMATCHED_ROUTE, status: problem.status, code: problem.code },
        'request refused by the HTTP parser')
    }
  }

  /** Every error of a request ends here, and nothing thrown here may escape: the process keeps serving. */
  function fail (err: unknown, req: AloftRequest, res: ServerResponse): void {
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
      if (err instanceof HttpProblem) {
        sendProblem(res, err, req.id)
        return
      }
      logger.error({ err, request_id: req.id, path: req.path }, 'unexpected error')
      sendProblem(res, internalError(req.id), req.id)
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

  const router = polka<AloftRequest>({
    onError: (err, req, res) => fail(err, req, res),
    onNoMatch: (req) => {
      const allowed = matchers.filter((m) => m.pattern.test(req.path)).map((m) => m.route.method)
      if (allowed.length === 0) {
        throw new HttpProblem('not_found', { detail: `No route ${req.method} ${req.path.slice(0, 200)}.` })
      }
      const allow = allowValue(allowed)
      throw new HttpProblem('method_not_allowed', { detail: `${req.path} takes ${allow}.`, headers: { Allow: allow } })
    }
  })

  /**
   * The metric series of each (route, method, status), looked up once: prom-client hashes labels per
   * call. Nested by each part (route and method are the same few strings, status a number), so no
   * key is built per request.
   */
  interface Series { count: () => void, time: (seconds: number) => void }
  const series = new Map<string, Map<string, Map<number, Series>>>()
  const seriesOf = (route: string, method: string, status: number): Series => {
    let byMethod = series.get(route)
    if (byMethod === undefined) series.set(route, byMethod = new Map())
    let byStatus = byMethod.get(method)
    if (byStatus === undefined) byMethod.set(method, byStatus = new Map())
    let s = byStatus.get(status)
    if (s === undefined) {
      const count = metrics.httpRequests.labels(route, method, String(status))
      const duration = metrics.httpDuration.labels(route, method, String(status))
      s = { count: () => count.inc(), time: (seconds) => duration.observe(seconds) }
      byStatus.set(status, s)
    }
    return s
  }

  // Request id, logs, metrics and the drain flag, for every request including 404s.
  const begin = (req: AloftRequest, res: ServerResponse, next: () => void): void => {
    const incoming = req.headers['x-request-id']
    req.id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    req.started = process.hrtime.bigint()
    res.setHeader('X-Request-Id', req.id)
    res.setHeader('X-Content-Type-Options', 'nosniff')
    if (app.draining) res.setHeader('Connection', 'close')
    inFlight++
    let done = false
    const finish = (): void => {
      if (done) return
      done = true
      inFlight--
      const seconds = Number(process.hrtime.bigint() - req.started) / 1e9
      const route = req.routeId ?? operationOf(req)
      const s = seriesOf(route, req.method, res.statusCode)
      s.count()
      s.time(seconds)
      // the record is built only when it will be written (load runs log at warn)
      if (!logger.isLevelEnabled('info')) return
      logger.info({
        request_id: req.id,
        method: req.method,
        path: req.path,
        route,
        status: res.statusCode,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        ...(req.accountId !== undefined ? { account_id: req.accountId } : {})
      }, 'request')
    }
    // 'close' comes after every response, sent ('finish' first) or cut off: one listener serves both
    res.on('close', finish)
    writes.watch(res)
    if (inFlight > config.maxInFlight && !ALWAYS_ANSWERED.has(req.path)) {
      throw new HttpProblem('service_unavailable', {
        detail: `This instance is handling ${config.maxInFlight} requests already; try again shortly.`,
        headers: { 'Retry-After': 1 }
      })
    }
    next()
  }
  router.use(begin)

  for (const route of routes) {
    const handle = handlers[route.operationId]
    if (handle === undefined) throw new Error(`no handler for ${route.operationId}`)
    // The stores take one rate token per admission; a costlier route needs them to take more.
    if (route.admissionCost > 1) {
      throw new Error(`${route.operationId}: admission costs above 1 token are not supported`)
    }
    // V8's JSON.stringify formats each number straight into its output, where a compiled serializer makes
    // a string of each: a fresh profile's hundred doubles take half the time. Order is what the compiled
    // serializer adds, so a route whose answers are built in schema order needs only JSON.stringify.
    const { schema, builtInOrder } = route.success
    const serialize = schema === undefined || builtInOrder === true ? JSON.stringify : compileSerializer(schema)
    const method = route.method.toLowerCase() as 'get' | 'post' | 'delete'
    const kept = repeats[route.operationId]
    router[method](route.path, async (req, res) => {
      req.routeId = route.operationId
      if (route.cors) res.setHeader('Access-Control-Allow-Origin', '*')
      let accountId = ''
      if (route.auth === 'api_key') {
        accountId = route.admissionCost > 0
          ? await admit(req, res, deps, route.unauthorizedTitle)
          : await authenticate(req, deps.store, route.unauthorizedTitle)
      } else if (route.auth === 'admin') {
        checkAdmin(req, config.adminToken as string)
      } else if (route.auth === 'metrics' && config.metricsToken !== undefined) {
        checkBearer(req, config.metricsToken, 'aloft-metrics', 'metrics token')
      }
      if (accountId !== '') holdFor(accountId, res)
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
      // `body` is what the route's schema validated: the body type its handler declares.
      const reply = await handle({ req, res, body: body as never, accountId, params: req.params })
      if (reply.streamed === true) return
      const answer = send(res, reply, route.success.status, serialize)
      if (reply.sharable === true && kept !== undefined && bytes !== undefined) kept.set(bytes, answer, generation)
    })
  }

  /** Counts a request against its account's share of the instance until its answer closes. */
  function holdFor (accountId: string, res: ServerResponse): void {
    const held = accountInFlight.get(accountId) ?? 0
    if (held >= config.maxInFlightPerAccount) {
      throw new HttpProblem('rate_limited', {
        detail: `This account has ${held} requests under way on this instance, the most it may ` +
          `(ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT); wait for some to finish.`,
        headers: { 'Retry-After': 1 }
      })
    }
    accountInFlight.set(accountId, held + 1)
    res.once('close', () => {
      const left = (accountInFlight.get(accountId) ?? 1) - 1
      if (left > 0) accountInFlight.set(accountId, left)
      else accountInFlight.delete(accountId)
    })
  }

  // polka's `next` is optional at run time: without it, errors go to onError.
  const dispatch = router.handler as unknown as (req: AloftRequest, res: ServerResponse) => void
  app.handler = (incoming, res) => {
    const req = incoming as AloftRequest
    const url = req.url ?? ''
    if (url.charCodeAt(0) !== SLASH) {
      // polka runs middleware only for paths: an absolute-form target (RFC 9112 §3.2.2) is served
      // as its path; anything else (OPTIONS *) is answered here, with the same id, log and metrics
      const path = originForm(url)
      if (path === null) {
        req.path = url.slice(0, 200)
        try {
          begin(req, res, () => { throw new HttpProblem('not_found', { detail: `No resource ${req.path}.` }) })
        } catch (err) {
          fail(err, req, res)
        }
        return
      }
      req.url = path
    }
    dispatch(req, res)
  }
  return app
}

const SLASH = 0x2f
/** The method label of an answer sent before a request line could be read. */
const UNPARSED_METHOD = 'unknown'

/** The path and query of an absolute-form target (`http://host/path?q`), or null for any other form. */
function originForm (target: string): string | null {
  if (!/^https?:\/\//i.test(target) || !URL.canParse(target)) return null
  const url = new URL(target)
  return url.pathname + url.search
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

function declaresBody (req: AloftRequest): boolean {
  const length = req.headers['content-length']
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined
}

/** The validated JSON body of a route that takes one. */
function checkBody (raw: unknown, spec: NonNullable<RouteSpec['body']>): unknown {
  if (raw === undefined) {
    throw new HttpProblem('invalid_request', {
      detail: 'A JSON body is required.', errors: [{ loc: ['body'], msg: 'Field required', type: 'missing' }]
    })
  }
  const checked = validate(spec.schema, raw)
  if (!checked.ok) {
    throw new HttpProblem('invalid_request', {
      detail: `The body does not match ${String(spec.schema.$id)}: ${checked.total} error(s).`,
      errors: checked.errors
    })
  }
  return checked.value
}

function internalError (requestId: string): HttpProblem {
  return new HttpProblem('internal_error', { detail: `Something failed inside aloft; quote request id ${requestId}.` })
}

/** Writes the reply; returns the text sent. */
function send (res: ServerResponse, reply: Reply, defaultStatus: number, serialize: Serializer): string {
  const payload = reply.mediaType === undefined ? serialize(reply.body) : String(reply.body)
  if (reply.headers !== undefined) for (const name in reply.headers) res.setHeader(name, String(reply.headers[name]))
  // As text: Node joins it to the header text and writes both at once, straight from the string
  // (no Buffer made of the answer first).
  sendBody(res, reply.status ?? defaultStatus, reply.mediaType ?? 'application/json', payload)
  return payload
}

function sendBody (res: ServerResponse, status: number, mediaType: string, body: string | Buffer): void {
  res.statusCode = status
  res.setHeader('Content-Type', mediaType)
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length)
  res.end(body)
}
