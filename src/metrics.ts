// Prometheus metrics of one service instance (own registry, so several apps can live in one
// process, as in tests). Rooms add their series here so /metrics stays one list.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/**
 * The host's metrics cannot be had now (its primary did not answer): /metrics answers 503 rather
 * than one process's share, which Prometheus would read as every counter reset.
 */
export class HostMetricsUnavailableError extends Error {
  override readonly name = 'HostMetricsUnavailableError'
}

export interface Metrics {
  registry: Registry
  httpRequests: Counter<'route' | 'method' | 'status'>
  httpDuration: Histogram<'route' | 'method' | 'status'>
  /** Connections and answers cut off by a limit of ours, by why. */
  httpCutOff: Counter<'reason'>
  /** Public mode of the Tawhiri paths (docs/DESIGN.md §9): its limits, as configured. */
  publicLimits: Gauge<'limit'>
  /** Public callers' requests, by what became of them at admission (the Tawhiri room's admission.ts). */
  publicRequests: Counter<'outcome'>
  /** Today's upstream attempts of the public callers' shared allowance, read from the store at each scrape. */
  publicAllowanceUsed: Gauge
  /** Sets how publicAllowanceUsed is read (the store comes after the metrics). */
  readPublicAllowance: (read: () => Promise<number>) => void
  /** Tawhiri-path requests that met an empty bucket or a full share and waited their turn, by how that ended. */
  burstWaits: Counter<'outcome'>
  /** The instance's capacity now (docs/DESIGN.md §10): slots held, of them public callers', requests waiting. */
  capacity: Gauge<'state'>
  /** Sets how the capacity is read (the app comes after the metrics). */
  readCapacity: (read: () => { working: number, public: number, waiting: number }) => void
  /** What /metrics answers: this registry, or the whole host's when several processes serve it. */
  exposition: () => Promise<string>
  /** Sets how the exposition is made (a host's process asks its primary: src/cluster). */
  exposeWith: (expose: () => Promise<string>) => void
}

export function createMetrics (options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry()
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'aloft_' })
  let readAllowance: (() => Promise<number>) | undefined
  let readCapacity: (() => { working: number, public: number, waiting: number }) | undefined
  let expose = async (): Promise<string> => await registry.metrics()
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
    }),
    publicLimits: new Gauge({
      name: 'aloft_public_limit',
      help: 'Public mode of the Tawhiri paths (ALOFT_PUBLIC_TAWHIRI): rate_per_second and rate_burst of each client ' +
        'address, daily_allowance shared by all public callers and daily_allowance_per_client of it, ' +
        'in_flight_share of ALOFT_MAX_IN_FLIGHT; absent when public mode is off',
      labelNames: ['limit'],
      aggregator: 'first', // configured alike in every process of a host
      registers: [registry]
    }),
    publicRequests: new Counter({
      name: 'aloft_public_requests_total',
      help: 'Requests without a key on the Tawhiri paths in public mode: admitted, or rate_limited (after waiting)',
      labelNames: ['outcome'],
      registers: [registry]
    }),
    publicAllowanceUsed: new Gauge({
      name: 'aloft_public_allowance_used',
      help: 'Upstream attempts today of the daily allowance all public callers share',
      aggregator: 'first', // read from the store every process shares
      registers: [registry],
      async collect () {
        if (readAllowance !== undefined) this.set(await readAllowance().catch(() => NaN))
      }
    }),
    readPublicAllowance: (read) => { readAllowance = read },
    burstWaits: new Counter({
      name: 'aloft_burst_waits_total',
      help: 'Tawhiri-path requests that found their rate bucket empty or their share of the instance taken and ' +
        'waited their turn: served, refused once ALOFT_TAWHIRI_BURST_WAIT_MS had passed, or gone (the client left ' +
        'while it waited: dropped, nothing computed)',
      labelNames: ['outcome'],
      registers: [registry]
    }),
    capacity: new Gauge({
      name: 'aloft_capacity',
      help: 'Requests of this instance now, by state: working (holding one of ALOFT_MAX_IN_FLIGHT), public ' +
        '(of them, callers without a key), waiting (on the Tawhiri paths, for a rate token or a slot; holding none)',
      labelNames: ['state'],
      registers: [registry],
      collect () {
        if (readCapacity === undefined) return
        const now = readCapacity()
        this.labels('working').set(now.working)
        this.labels('public').set(now.public)
        this.labels('waiting').set(now.waiting)
      }
    }),
    readCapacity: (read) => { readCapacity = read },
    exposition: () => expose(),
    exposeWith: (next) => { expose = next }
  }
}
