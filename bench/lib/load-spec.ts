// What a load run is asked to do (LoadSpec, its LoadRequests) and what it measured (LoadResult):
// the load generator's input and output, shared by the child that runs it and the benchmarks
// that start it.
import type { Summary } from './stats.js'

export interface LoadRequest {
  /** A label for the result tables: `cached`, `cold`, `invalid`, … */
  kind: string
  method: 'GET' | 'POST'
  url: string
  headers?: Record<string, string>
  body?: string
  /** Relative share of the mix; default 1. */
  weight?: number
  /** A new profile body for every request (bench/lib/bodies.ts), from this seed, instead of `body`. */
  freshProfileSeed?: number
}

export interface LoadSpec {
  mode: 'closed' | 'open'
  connections: number
  /** Measured seconds (after the warm-up). */
  seconds: number
  /** Seconds of the same load before measuring; default 0. */
  warmupSeconds?: number
  /** open: requests per second. */
  rate?: number
  requests: LoadRequest[]
  /** Width of the over-time windows; default 10 s. */
  windowSeconds?: number
  /** How long to wait for answers after the end; default 10 s. */
  drainSeconds?: number
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number
  /** Hard bound on requests started; default: the rate's count (open) or 20 million. */
  maxRequests?: number
  /**
   * `raw`: bench/raw-client (one server, answers with a Content-Length): a generator light enough
   * that its own pauses do not swamp a server's tail latency. `c` (open loop only): bench/children/loadgen.c,
   * compiled on first use (cLoadgen), for tails in the low milliseconds. Default `node` (Node's http client).
   */
  client?: 'node' | 'raw' | 'c'
}

export interface WindowStats {
  startS: number
  count: number
  rps: number
  p50: number
  p99: number
  max: number
  errors: number
}

export interface LoadResult {
  mode: 'closed' | 'open'
  connections: number
  rate: number | null
  seconds: number
  /** Requests started in the measured period; `completed`: of those, answered (any status). */
  sent: number
  completed: number
  /** Completed requests per second of the measured period. */
  rps: number
  /** Milliseconds, all measured requests. */
  latencyMs: Summary
  byKind: Record<string, Summary>
  /** `<kind> <status>` or `<kind> error:<code>` → count. */
  outcomes: Record<string, number>
  windows: WindowStats[]
  /** open: the largest lag of the scheduler behind the schedule (ms), i.e. the generator's own limit. */
  schedulerLagMs: number
  /** Requests still unanswered when the drain ended (counted in outcomes as error:unfinished). */
  unfinished: number
}
