// /metrics for the whole host (docs/DESIGN.md §11): the process a scrape lands on asks the primary,
// which gathers every process's own metrics and sums them. One series per host rather than one per
// process, because a scrape reaches one process of the port at random: only the primary sees them
// all, and a sum is what the host did. Counters and histograms only ever go up, as Prometheus
// requires (it reads any drop as a reset): a process that is slow to answer counts with its values
// as last heard; one that died leaves what it had counted in the sums; sums are exact, so the order
// of the parts changes nothing; and no series is ever reported below what it was before. Gauges
// combine as each says (prom-client's aggregation) and may go down.
import type { Worker } from 'node:cluster'
import { AggregatorRegistry, Counter, Gauge, Registry, type MetricValue } from 'prom-client'
import { ExactSum } from './exact-sum.js'
import { withinMs } from '../timers.js'
import type { HostState, MetricsJson, ToProcess } from './messages.js'

/** How long a scrape waits for the processes; one that has not answered by then counts as last heard. */
export const GATHER_WAIT_MS = 2000

type Metric = MetricsJson[number]
/** One sample as prom-client's JSON gives it: a histogram's name its _bucket, _sum or _count. */
type Sample = MetricValue<string> & { metricName?: string }

interface Gathering {
  waiting: number
  done: () => void
}

/** A counter's or histogram's series of the whole host, summed exactly over its parts. */
interface Series { labels: MetricValue<string>['labels'], metricName?: string, sum: ExactSum }

/** Counters' and histograms' series by metric, each with its metadata, summed exactly. */
class MonotonicSums {
  readonly #metrics = new Map<string, { meta: Omit<Metric, 'values'>, series: Map<string, Series> }>()

  /** Adds every counter and histogram of `metrics` (gauges are not sums that only grow: left out). */
  add (metrics: MetricsJson): void {
    for (const metric of metrics) {
      if (!isMonotonic(metric)) continue
      const { values, ...meta } = metric
      let entry = this.#metrics.get(metric.name)
      if (entry === undefined) {
        entry = { meta, series: new Map() }
        this.#metrics.set(metric.name, entry)
      }
      for (const v of values as Sample[]) {
        if (!Number.isFinite(v.value)) continue
        const key = seriesKey(v)
        let series = entry.series.get(key)
        if (series === undefined) {
          series = { labels: v.labels, metricName: v.metricName, sum: new ExactSum() }
          entry.series.set(key, series)
        }
        series.sum.add(v.value)
      }
    }
  }

  /** Adds what another set of sums holds (a dead process's share into the kept one). */
  addSums (other: MonotonicSums): void {
    for (const [name, { meta, series }] of other.#metrics) {
      let entry = this.#metrics.get(name)
      if (entry === undefined) {
        entry = { meta, series: new Map() }
        this.#metrics.set(name, entry)
      }
      for (const [key, s] of series) {
        let mine = entry.series.get(key)
        if (mine === undefined) {
          mine = { labels: s.labels, metricName: s.metricName, sum: new ExactSum() }
          entry.series.set(key, mine)
        }
        mine.sum.addAll(s.sum)
      }
    }
  }

  /** The sums as metrics, each series correctly rounded and raised to `floor`'s value when it was higher. */
  metrics (floor: Map<string, number>): MetricsJson {
    const out: MetricsJson = []
    for (const [name, { meta, series }] of this.#metrics) {
      const values: Sample[] = []
      for (const [key, s] of series) {
        const id = `${name}\u0000${key}`
        const value = Math.max(s.sum.value(), floor.get(id) ?? -Infinity)
        floor.set(id, value)
        values.push(s.metricName === undefined ? { labels: s.labels, value }
          : { labels: s.labels, value, metricName: s.metricName })
      }
      out.push({ ...meta, values } as Metric)
    }
    return out
  }
}

function isMonotonic (metric: Metric): boolean {
  return ['counter', 'histogram'].includes(String(metric.type))
}

/** A series' identity within its metric: its sample name (a histogram's _bucket, _sum, _count) and labels. */
function seriesKey (v: Sample): string {
  const labels = Object.entries(v.labels).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
  return `${v.metricName ?? ''}${JSON.stringify(labels)}`
}

/** The primary's own series and its gathering of the processes'. */
export class HostMetrics {
  readonly registry = new Registry()
  readonly restarts: Counter<'reason'>
  #state: HostState = { serving: 0, configured: 0 }
  #next = 0
  readonly #gatherings = new Map<number, Gathering>()
  /** Each live process's metrics as last heard (answering a gathering, or reporting on its own), by worker id. */
  readonly #latest = new Map<number, MetricsJson>()
  /** What processes that died had counted (their counters and histograms as last heard), summed exactly. */
  readonly #retired = new MonotonicSums()
  /** The value each counter and histogram series was last reported with: never reported lower. */
  readonly #reported = new Map<string, number>()

  constructor () {
    const read = (): HostState => this.#state
    this.restarts = new Counter({
      name: 'aloft_process_restarts_total',
      help: 'HTTP processes the primary replaced after they died, by how they died (exit code or signal)',
      labelNames: ['reason'],
      registers: [this.registry]
    })
    // eslint-disable-next-line no-new -- a collected gauge registers itself
    new Gauge({
      name: 'aloft_processes',
      help: 'HTTP processes of this host (ALOFT_PROCESSES): configured, and serving (listening and not yet dead)',
      labelNames: ['state'],
      registers: [this.registry],
      collect () {
        this.labels('configured').set(read().configured)
        this.labels('serving').set(read().serving)
      }
    })
  }

  set state (state: HostState) { this.#state = state }

  /** Every process's metrics (fresh, or as last heard) and the primary's, summed, in the exposition format. */
  async gather (workers: Worker[]): Promise<string> {
    const id = this.#next++
    const asked = workers.filter((w) => w.isConnected())
    const answered = new Promise<void>((resolve) => {
      this.#gatherings.set(id, { waiting: asked.length, done: resolve })
      if (asked.length === 0) resolve()
      for (const w of asked) w.send({ aloft: 'send-metrics', id } satisfies ToProcess)
    })
    await withinMs(answered, GATHER_WAIT_MS, () => undefined)
    this.#gatherings.delete(id)
    const parts: MetricsJson[] = [await this.registry.getMetricsAsJSON() as MetricsJson]
    for (const w of workers) {
      const last = this.#latest.get(w.id)
      if (last !== undefined) parts.push(last)
    }
    return await this.#combine(parts).metrics()
  }

  /** The host's registry: counters and histograms summed exactly over `parts` and the dead, gauges aggregated. */
  #combine (parts: MetricsJson[]): Registry {
    const sums = new MonotonicSums()
    sums.addSums(this.#retired)
    for (const part of parts) sums.add(part)
    const gauges = parts.map((part) => part.filter((m) => !isMonotonic(m)))
    // the sums enter the aggregation as one part alone: their values pass through as they are
    return AggregatorRegistry.aggregate([sums.metrics(this.#reported), ...gauges])
  }

  /**
   * Process `worker`'s metrics, answering gathering `id` (or reporting on its own, with an id no
   * gathering has): remembered as its latest either way.
   */
  received (id: number, worker: number, metrics: MetricsJson): void {
    this.#latest.set(worker, metrics)
    const gathering = this.#gatherings.get(id)
    if (gathering === undefined) return
    if (--gathering.waiting === 0) gathering.done()
  }

  /** Process `worker` died: what it counted stays in the host's sums (its gauges go with it). */
  retire (worker: number): void {
    const last = this.#latest.get(worker)
    this.#latest.delete(worker)
    if (last !== undefined) this.#retired.add(last)
  }
}
