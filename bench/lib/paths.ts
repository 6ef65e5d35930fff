// Where the benchmarks run from and what they read and write: the repository root, the compiled
// benchmarks (dist/bench/, whose children/ they start), the bundled sample and bench/results.
import { fileURLToPath } from 'node:url'

/** The repository root (this file runs as dist/bench/lib/paths.js). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** dist/bench/: the compiled benchmarks, beside them children/ (the processes they start). */
export const DIST_BENCH = fileURLToPath(new URL('../', import.meta.url))
export const SAMPLE = `${ROOT}data/sample`
export const RESULTS = `${ROOT}bench/results`
