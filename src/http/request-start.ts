// The first stage of every request, 404s included (polka runs it before any route): its id, the
// headers every answer carries, the drain flag, the in-flight counts, the write watch, and the
// instance's capacity (a 503 beyond ALOFT_MAX_IN_FLIGHT). When the answer closes, the request's
// metrics and log line (request-metrics.ts).
import type { ServerResponse } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { AppDeps, AloftRequest } from './context.js'
import { HttpProblem } from './problem.js'
import { WriteWatch } from './write-watch.js'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
/** Answered even at capacity: a liveness probe must not fail because the service is busy. */
const ALWAYS_ANSWERED = new Set(['/healthz'])

export interface RequestStart {
  /** The middleware; throws the 503 when the instance is at capacity. */
  begin: (req: AloftRequest, res: ServerResponse, next: () => void) => void
  /** Set while shutting down: answers then ask clients to close the connection. */
  draining: boolean
  /** Requests not yet answered. */
  inFlight: () => number
  /** Stops the write watch's timer. */
  stop: () => void
}

/** @param ended told of each request once its answer has closed (sent or cut off) */
export function requestStart (
  { config, logger, metrics }: AppDeps, ended: (req: AloftRequest, res: ServerResponse) => void
): RequestStart {
  let inFlight = 0
  const writes = new WriteWatch(config.writeTimeoutMs, (res, queued) => {
    metrics.httpCutOff.labels('write_stalled').inc()
    logger.warn({ request_id: (res.req as AloftRequest).id, queued_bytes: queued, timeout_ms: config.writeTimeoutMs },
      'an answer waited on a client that read none of it: connection closed')
  })
  const start: RequestStart = {
    draining: false,
    inFlight: () => inFlight,
    stop: () => writes.close(),
    begin: (req, res, next) => {
      const incoming = req.headers['x-request-id']
      req.id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
      req.started = process.hrtime.bigint()
      res.setHeader('X-Request-Id', req.id)
      res.setHeader('X-Content-Type-Options', 'nosniff')
      if (start.draining) res.setHeader('Connection', 'close')
      inFlight++
      let done = false
      const finish = (): void => {
        if (done) return
        done = true
        inFlight--
        ended(req, res)
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
  }
  return start
}
