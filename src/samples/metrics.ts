// The samples engine's metrics: points sampled (a session's held calls too), and per request its
// points, their statuses and the time computing them, by where it ran.
import { Counter, Histogram, type Registry } from 'prom-client'
import { SAMPLE_STATUSES } from '../contract/index.js'

export class SamplesMetrics {
  readonly #points: Counter
  readonly #statuses: Counter<'status'>
  readonly #perRequest: Histogram
  readonly #seconds: Histogram<'where'>

  constructor (registry: Registry) {
    const registers = [registry]
    this.#points = new Counter({ name: 'aloft_samples_points_total', help: 'Points sampled', registers })
    this.#statuses = new Counter({ name: 'aloft_samples_point_status_total', help: 'Sampled points by status',
      labelNames: ['status'], registers })
    this.#perRequest = new Histogram({ name: 'aloft_samples_points_per_request', help: 'Points per samples request',
      buckets: [1, 10, 100, 1000, 10_000, 100_000, 1_000_000], registers })
    this.#seconds = new Histogram({ name: 'aloft_samples_compute_seconds',
      help: 'Time computing the points of one request (after its data is loaded), by where it ran',
      labelNames: ['where'], buckets: [0.0005, 0.002, 0.01, 0.05, 0.2, 1, 5], registers })
  }

  /** Points computed. */
  counted (n: number): void {
    this.#points.inc(n)
  }

  /** A request computed: its points' statuses, and how long computing them took since `started` (hrtime). */
  request (status: Uint8Array, n: number, inWorkers: boolean, started: bigint): void {
    this.#seconds.observe({ where: inWorkers ? 'workers' : 'main' }, Number(process.hrtime.bigint() - started) / 1e9)
    this.#perRequest.observe(n)
    const counts = new Array<number>(SAMPLE_STATUSES.length).fill(0)
    for (let p = 0; p < n; p++) counts[status[p]]++
    counts.forEach((c, k) => { if (c > 0) this.#statuses.inc({ status: SAMPLE_STATUSES[k] }, c) })
  }
}
