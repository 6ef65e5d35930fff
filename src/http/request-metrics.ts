// What every request leaves behind once its answer has closed: one count and one duration in its
// (route, method, status) series, and at info level one log line. An answer whose client left
// before it ended is 499, never the status it would have had (client-gone.ts). Answers Node's
// parser sent before any request existed (client-error.ts) are counted and logged here too.
import type { ServerResponse } from 'node:http'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import type { ClientErrorAnswers } from './client-error.js'
import { CLIENT_CLOSED_REQUEST } from './client-gone.js'
import type { AloftRequest } from './context.js'
import { UNMATCHED_ROUTE } from './route-table.js'

/** The method label of an answer sent before a request line could be read. */
const UNPARSED_METHOD = 'unknown'

interface Series { count: () => void, time: (seconds: number) => void }

export interface RequestMetrics {
  /** Records a request whose answer has closed (sent or cut off). */
  ended: (req: AloftRequest, res: ServerResponse) => void
  /** Logs and counts an answer Node's parser made us send (client-error.ts). */
  clientErrorAnswered: ClientErrorAnswers['answered']
}

/**
 * @param operationOf the operation a request's method and path name, for a request no handler
 * took (a 503 at capacity is still counted under its operation): the one style of the `route` label
 */
export function requestMetrics (
  metrics: Metrics, logger: Logger, operationOf: (req: AloftRequest) => string
): RequestMetrics {
  /**
   * The metric series of each (route, method, status), looked up once: prom-client hashes labels per
   * call. Nested by each part (route and method are the same few strings, status a number), so no
   * key is built per request.
   */
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

  return {
    ended: (req, res) => {
      const seconds = Number(process.hrtime.bigint() - req.started) / 1e9
      const route = req.routeId ?? operationOf(req)
      const status = res.writableFinished || req.cutOff === true ? res.statusCode : CLIENT_CLOSED_REQUEST
      const s = seriesOf(route, req.method, status)
      s.count()
      s.time(seconds)
      // the record is built only when it will be written (load runs log at warn)
      if (!logger.isLevelEnabled('info')) return
      logger.info({
        request_id: req.id,
        method: req.method,
        path: req.path,
        route,
        status,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        ...(req.accountId !== undefined ? { account_id: req.accountId } : {})
      }, 'request')
    },
    clientErrorAnswered: (problem, requestId) => {
      seriesOf(UNMATCHED_ROUTE, UNPARSED_METHOD, problem.status).count()
      logger.info({ request_id: requestId, route: UNMATCHED_ROUTE, status: problem.status, code: problem.code },
        'request refused by the HTTP parser')
    }
  }
}
