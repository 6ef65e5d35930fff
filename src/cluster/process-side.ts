// A process's side of the host (docs/DESIGN.md §11): it tells the primary it serves, answers the
// primary's gathering of metrics and reports them on its own every REPORT_EVERY_MS (so a process
// killed outright leaves at most that much of its counting out of the host's sums), asks the
// primary for the host's metrics when scraped, and keeps the host's state for readiness.
import cluster from 'node:cluster'
import { HostMetricsUnavailableError, type Metrics } from '../metrics.js'
import { GATHER_WAIT_MS } from './host-metrics.js'
import { withinMs } from '../timers.js'
import { isMessage, type HostState, type MetricsJson, type ToPrimary, type ToProcess } from './messages.js'

/**
 * A scrape waits this long for the primary, which itself waits GATHER_WAIT_MS for the processes and
 * then sums what they sent: room for a primary on a busy machine.
 */
const ASK_WAIT_MS = GATHER_WAIT_MS + 5000
/** How often a process reports its metrics unasked (bench/cores measures what it costs). */
export const REPORT_EVERY_MS = 1000
/** The id of a report no gathering asked for. */
export const UNASKED = -1

export interface HostLink {
  /** The host's state as the primary last told it. */
  state: () => HostState
  /** Says this process listens at `url`: from now on the primary counts it as serving. */
  ready: (url: string) => void
  /** Stops listening to the primary, so the process can end once its service has closed. */
  leave: () => void
}

function send (message: ToPrimary): void {
  if (process.connected) process.send?.(message)
}

/** Joins the host: `metrics` is then exposed for the whole host (own metrics only if the primary is silent). */
export function joinHost (metrics: Metrics, processes: number): HostLink {
  if (!cluster.isWorker) throw new Error('joinHost is for a process forked by the host\'s primary')
  let state: HostState = { serving: 0, configured: processes }
  let next = 0
  const asked = new Map<number, (text: string) => void>()
  const onMessage = (message: unknown): void => {
    if (!isMessage<ToProcess>(message)) return
    if (message.aloft === 'host') {
      state = message.state
    } else if (message.aloft === 'send-metrics') {
      report(message.id)
    } else if (message.aloft === 'metrics-text') {
      asked.get(message.id)?.(message.text)
    }
  }
  const report = (id: number): void => {
    void metrics.registry.getMetricsAsJSON().then((own) => {
      send({ aloft: 'own-metrics', id, metrics: own as MetricsJson })
    })
  }
  process.on('message', onMessage)
  const reporting = setInterval(() => report(UNASKED), REPORT_EVERY_MS).unref()
  metrics.exposeWith(async () => {
    // this process's own series alone would read as the host's counters dropping: none rather than those
    const silent = new HostMetricsUnavailableError('the host\'s primary did not answer with every process\'s metrics')
    if (!process.connected) throw silent
    const id = next++
    const text = await withinMs(new Promise<string | null>((resolve) => {
      asked.set(id, resolve)
      send({ aloft: 'host-metrics', id })
    }), ASK_WAIT_MS, () => null)
    asked.delete(id)
    if (text === null) throw silent
    return text
  })
  return {
    state: () => state,
    ready: (url) => send({ aloft: 'ready', url }),
    leave: () => {
      clearInterval(reporting)
      process.off('message', onMessage)
      cluster.worker?.disconnect()
    }
  }
}
