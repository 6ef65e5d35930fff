// Percentiles and summaries of latency samples (nearest rank), shared by the benchmarks.

/** The p-th percentile (0..100) of an ascending array, nearest rank; NaN when empty. */
export function percentile (sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length
  if (n === 0) return NaN
  const rank = Math.ceil((p / 100) * n)
  return sorted[Math.min(n - 1, Math.max(0, rank - 1))]
}

export interface Summary { count: number, mean: number, p50: number, p90: number, p99: number, max: number }

/** Summary of samples (any order; the input is not changed). */
export function summarize (samples: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(samples).sort()
  let sum = 0
  for (let k = 0; k < sorted.length; k++) sum += sorted[k]
  return {
    count: sorted.length,
    mean: sorted.length === 0 ? NaN : sum / sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? NaN : sorted[sorted.length - 1]
  }
}

/**
 * The median time (ms) of `rounds` runs of `run`, after one run that warms it up: a yardstick of how
 * quick this machine is now, measured beside what it judges (test/helpers/yardstick.ts, bench/fuzz.ts).
 */
export async function medianMs (run: () => Promise<unknown> | unknown, rounds = 5): Promise<number> {
  await run()
  const times: number[] = []
  for (let k = 0; k < rounds; k++) {
    const started = performance.now()
    await run()
    times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)]
}
