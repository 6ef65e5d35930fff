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
