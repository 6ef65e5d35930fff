// Prometheus metrics of one service instance (own registry, so several apps can live in one
// process, as in tests). Rooms add their series here so /metrics stays one list.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export interface Metrics {
  registry: Registry
  httpRequests: Counter<'route' | 'method' | 'status'>
  httpDuration: Histogram<'route' | 'method' | 'status'>
  /** Connections and answers cut off by a limit of ours, by why. */
  httpCutOff: Counter<'reason'>
}

export function createMetrics (options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry()
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'aloft_' })
  return {
    registry,
    httpRequests: new Counter({
      name: 'aloft_http_requests_total',
      help: 'HTTP requests answered, by route (operation id; unmatched: no operation), method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry]
    }),
    httpDuration: new Histogram({
      name: 'aloft_http_request_duration_seconds',
      help: 'Time from request to response end, by route (operation id; unmatched: no operation), method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry]
    }),
    httpCutOff: new Counter({
      name: 'aloft_http_cut_off_total',
      help: 'Connections closed by a limit of aloft\'s: write_stalled (an answer waited on a client that read ' +
        'nothing for ALOFT_WRITE_TIMEOUT_MS), connections_per_address (ALOFT_MAX_CONNECTIONS_PER_ADDRESS)',
      labelNames: ['reason'],
      registers: [registry]
    })
  }
}
