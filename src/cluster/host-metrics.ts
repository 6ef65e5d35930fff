// /metrics for the whole host (docs/DESIGN.md §11): the process a scrape lands on asks the primary,
// which gathers every process's own metrics and sums them (prom-client's aggregation: counters and
// histograms add up; each gauge says how it combines, e.g. a configured limit is taken once). One
// series per host rather than one per process, because a scrape reaches one process of the port
// at random: only the primary sees them all, and a sum is what the host did.
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
    const replies: MetricsJson[] = [await this.registry.getMetricsAsJSON() as MetricsJson]
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

  /** A process's answer to gathering `id` (late answers are dropped). */
  received (id: number, metrics: MetricsJson): void {
    const gathering = this.#gatherings.get(id)
    if (gathering === undefined) return
    gathering.replies.push(metrics)
    if (--gathering.waiting === 0) gathering.done()
  }
}
