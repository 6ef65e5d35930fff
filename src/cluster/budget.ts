// One process's share of the host's memory budgets when several serve it (docs/DESIGN.md §11):
// each keeps its own decoded units and large samples buffers, so ALOFT_CACHE_MB and
// ALOFT_SAMPLES_MEMORY_MB, which the operator sizes for the host, are split evenly between them —
// but never below what the largest request allowed needs, or that request would be refused forever.
import type { Config } from '../config/index.js'
import { arenaBytes } from '../samples/index.js'

const MIB = 1024 * 1024
/** The least a process keeps for large samples requests (ALOFT_SAMPLES_MEMORY_MB's own minimum). */
const MIN_SAMPLES_MEMORY_BYTES = 16 * MIB

export function processConfig (config: Config): Config {
  const n = config.processes
  return {
    ...config,
    cacheMegabytes: Math.max(1, Math.floor(config.cacheMegabytes / n)),
    samplesMemoryBytes: Math.max(MIN_SAMPLES_MEMORY_BYTES, arenaBytes(config.samplesMaxPoints),
      Math.floor(config.samplesMemoryBytes / n / MIB) * MIB)
  }
}
