// The first stage of every request, 404s included (polka runs it before any route): its id, the
// headers every answer carries, the drain flag, the count of requests open, the write watch, a
// connection one too many for its address (connection-cap.ts), and the instance's capacity: a
// native route's slot (capacity.ts; a 503 beyond ALOFT_MAX_IN_FLIGHT). A Tawhiri path takes its
// slot later, once admitted: waiting its turn holds none (docs/DESIGN.md §10). When the answer
// closes, the request's metrics and log line (request-metrics.ts).
import type { ServerResponse } from 'node:http'
import { randomUUID } from 'node:crypto'
import { atCapacity, type Capacity } from './capacity.js'
import { connectionCapProblem, overCap } from './connection-cap.js'
import type { AppDeps, AloftRequest, RefusalShape } from './context.js'
import { allowAnyOrigin } from './cors.js'
import type { HttpProblem } from './problem.js'
import { WriteWatch } from './write-watch.js'
import { droppedLarge } from '../memory.js'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
/** Answered even at capacity: a probe must not fail because the service is busy with others' work. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/readyz'])

export interface RequestStart {
  /** The middleware; throws the 503 when the instance is at capacity. */
  begin: (req: AloftRequest, res: ServerResponse, next: () => void) => void
  /** Set while shutting down: answers then (those under way too) ask clients to close the connection. */
  draining: boolean
  /** Requests not yet answered (working or waiting their turn). */
  inFlight: () => number
  /** Stops the write watch's timer. */
  stop: () => void
}

/** The routes a request's refusal is shaped for: Tawhiri's paths (their own turn, their own error shape), CORS. */
export interface RouteShapes {
  /** How a refusal on a path is shaped, whatever the method (route-table.ts). */
  refusalOf: (path: string) => RefusalShape
  /** The paths whose requests take their slot once admitted, not here (the Tawhiri paths). */
  admittedLater: { test: (path: string) => boolean }
}

/** Gives a refusal no route's handler shapes the shape its path calls for: CORS, Tawhiri's error shape. */
export function shapeRefusal (req: AloftRequest, res: ServerResponse, shape: RefusalShape): void {
  if (shape.cors) allowAnyOrigin(res)
  if (shape.dialect !== undefined) req.dialect = shape.dialect
}

/** @param ended told of each request once its answer has closed (sent or cut off) */
export function requestStart (
  { config, logger, metrics }: AppDeps, capacity: Capacity, shapes: RouteShapes,
  ended: (req: AloftRequest, res: ServerResponse) => void
): RequestStart {
  let inFlight = 0
  let draining = false
  /** Answers not yet closed: a drain tells those whose headers are not yet sent to close their connection. */
  const open = new Set<ServerResponse>()
  /** A refusal before any route ran, in the shape its path calls for. */
  const refuse = (req: AloftRequest, res: ServerResponse, problem: HttpProblem): HttpProblem => {
    shapeRefusal(req, res, shapes.refusalOf(req.path))
    return problem
  }
  const writes = new WriteWatch(config.writeTimeoutMs, (res, queued) => {
    // the answer's queued bytes go with its socket: tens of MB that an idle process would otherwise keep
    droppedLarge(queued)
    ;(res.req as AloftRequest).cutOff = true
    metrics.httpCutOff.labels('write_stalled').inc()
    logger.warn({ request_id: (res.req as AloftRequest).id, queued_bytes: queued, timeout_ms: config.writeTimeoutMs },
      'an answer waited on a client that read none of it: connection closed')
  })
  const start: RequestStart = {
    get draining () { return draining },
    set draining (value) {
      draining = value
      // answers already under way close their connection too, so no client sends another request on it
      if (value) for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close')
    },
    inFlight: () => inFlight,
    stop: () => writes.close(),
    begin: (req, res, next) => {
      const incoming = req.headers['x-request-id']
      req.id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
      req.started = process.hrtime.bigint()
      res.setHeader('X-Request-Id', req.id)
      res.setHeader('X-Content-Type-Options', 'nosniff')
      if (draining) res.setHeader('Connection', 'close')
      inFlight++
      open.add(res)
      let done = false
      const finish = (): void => {
        if (done) return
        done = true
        inFlight--
        open.delete(res)
        ended(req, res)
      }
      // 'close' comes after every response, sent ('finish' first) or cut off: one listener serves both
      res.on('close', finish)
      writes.watch(res)
      if (overCap(req.socket)) {
        res.setHeader('Connection', 'close')
        throw refuse(req, res, connectionCapProblem(config.maxConnectionsPerAddress))
      }
      if (!ALWAYS_ANSWERED.has(req.path) && !shapes.admittedLater.test(req.path) && !capacity.takeInstance(res)) {
        throw refuse(req, res, atCapacity(config.maxInFlight))
      }
      next()
    }
  }
  return start
}
