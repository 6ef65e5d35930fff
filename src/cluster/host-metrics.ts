// /metrics for the whole host (docs/DESIGN.md §11): the process a scrape lands on asks the primary,
// which gathers every process's own metrics and sums them (prom-client's aggregation: counters and
// histograms add up; each gauge says how it combines, e.g. a configured limit is taken once). One
// series per host rather than one per process, because a scrape reaches one process of the port
// at random: only the primary sees them all, and a sum is what the host did. A process that dies
// leaves its counters and histograms as last gathered in the sum, so the host's counters never go
// back (Prometheus would read a reset) when it is replaced.
import type { Worker } from 'node:cluster'
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client'
import type { HostState, MetricsJson, ToProcess } from './messages.js'

/** How long a scrape waits for the processes; one that has not answered by then is left out. */
export const GATHER_WAIT_MS = 2000

interface Gathering {
  replies: MetricsJson[]
  waiting: number
  timer: NodeJS.Timeout
  done: () => void
}

/** The primary's own series and its gathering of the processes'. */
export class HostMetrics {
  readonly registry = new Registry()
  readonly restarts: Counter<'reason'>
  #state: HostState = { serving: 0, configured: 0 }
  #next = 0
  readonly #gatherings = new Map<number, Gathering>()
  /** Each live process's metrics as last gathered, by cluster worker id. */
  readonly #latest = new Map<number, MetricsJson>()
  /** The counters and histograms of processes that died (summed into one at the next gathering). */
  #retired: MetricsJson[] = []

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

  /** Every connected process's metrics and the primary's, summed, in the exposition format. */
  async gather (workers: Worker[]): Promise<string> {
    const id = this.#next++
    if (this.#retired.length > 1) {
      this.#retired = [await AggregatorRegistry.aggregate(this.#retired).getMetricsAsJSON() as MetricsJson]
    }
    const replies: MetricsJson[] = [await this.registry.getMetricsAsJSON() as MetricsJson, ...this.#retired]
    const asked = workers.filter((w) => w.isConnected())
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(gathering.timer)
        this.#gatherings.delete(id)
        resolve()
      }
      const gathering: Gathering = { replies, waiting: asked.length, timer: setTimeout(done, GATHER_WAIT_MS), done }
      this.#gatherings.set(id, gathering)
      if (asked.length === 0) done()
      for (const w of asked) w.send({ aloft: 'send-metrics', id } satisfies ToProcess)
    })
    return await AggregatorRegistry.aggregate(replies).metrics()
  }

  /** Process `worker`'s answer to gathering `id` (late answers are only remembered). */
  received (id: number, worker: number, metrics: MetricsJson): void {
    this.#latest.set(worker, metrics)
    const gathering = this.#gatherings.get(id)
    if (gathering === undefined) return
    gathering.replies.push(metrics)
    if (--gathering.waiting === 0) gathering.done()
  }

  /** Process `worker` died: what it counted stays in the host's sums (its gauges go with it). */
  retire (worker: number): void {
    const last = this.#latest.get(worker)
    this.#latest.delete(worker)
    if (last === undefined) return
    this.#retired.push(last.filter((m) => ['counter', 'histogram'].includes(String(m.type))))
  }
}
