// The host room (docs/DESIGN.md §11): several HTTP processes on one port under a supervising
// primary, their share of the host's budgets, and the metrics and state of the whole host.
import cluster from 'node:cluster'
export { processConfig } from './budget.js'
export { joinHost, type HostLink } from './process-side.js'
export type { HostState } from './messages.js'
export { restartDelayMs, STABLE_MS } from './restart-delay.js'
export { Supervisor } from './supervisor.js'

/** Whether this process is the host's primary (it forks the serving processes) rather than one of them. */
export function isPrimary (): boolean {
  return cluster.isPrimary
}
