// How many HTTP processes serve this host and how many worker threads each runs (docs/DESIGN.md
// §11). Several processes share accounts, allowances, rate buckets and unit locks, so they need
// Redis: a start without REDIS_URL is refused, naming both variables.
import { availableParallelism } from 'node:os'
import type { VariableReader } from './reader.js'

/** Most processes one host may ask for (a typo like 1000 should not fork a thousand). */
const MAX_PROCESSES = 256

/** ALOFT_PROCESSES: an integer, or `auto` for one per core; NaN (and a problem) when invalid. */
export function readProcesses (read: VariableReader, redisUrl: string | undefined): number {
  const text = read.raw('ALOFT_PROCESSES').trim()
  const n = text === 'auto' ? availableParallelism() : NaN
  const processes = Number.isNaN(n)
    ? read.number('ALOFT_PROCESSES', (v) => Number.isInteger(v) && v >= 1 && v <= MAX_PROCESSES,
      `auto or an integer from 1 to ${MAX_PROCESSES}`)
    : n
  if (processes > 1 && redisUrl === undefined) {
    const shown = text === 'auto' ? `auto (${processes} on this host)` : String(processes)
    read.problems.push(`ALOFT_PROCESSES=${shown} needs REDIS_URL: the processes must share the accounts, ` +
      'allowances, rate limits and unit locks (set REDIS_URL, or ALOFT_PROCESSES=1 for the in-memory store)')
  }
  return processes
}

/** ALOFT_WORKERS, or the cores divided among the processes (at least one thread each). */
export function readWorkers (read: VariableReader, processes: number): number {
  if (read.given('ALOFT_WORKERS') !== undefined) return read.int('ALOFT_WORKERS', 1, 256)
  return Math.max(1, Math.floor(availableParallelism() / (Number.isNaN(processes) ? 1 : processes)))
}
