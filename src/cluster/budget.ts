// One process's share of the host's memory budgets when several serve it (docs/DESIGN.md §11):
// each keeps its own decoded units and large samples buffers, so ALOFT_CACHE_MB and
// ALOFT_SAMPLES_MEMORY_MB, which the operator sizes for the host, are split evenly between them.
import type { Config } from '../config/index.js'

const MIB = 1024 * 1024
/** The least a process keeps for large samples requests (ALOFT_SAMPLES_MEMORY_MB's own minimum). */
const MIN_SAMPLES_MEMORY_BYTES = 16 * MIB

export function processConfig (config: Config): Config {
  const n = config.processes
  return {
    ...config,
    cacheMegabytes: Math.max(1, Math.floor(config.cacheMegabytes / n)),
    samplesMemoryBytes: Math.max(MIN_SAMPLES_MEMORY_BYTES, Math.floor(config.samplesMemoryBytes / n / MIB) * MIB)
  }
}
