// The nearest-model-time rule of docs/DESIGN.md §3, once: the profile route's catalog and the
// samples time plan both choose through it.

/** First index of an ascending array whose value is greater than x. */
export function upperBound (a: ArrayLike<number>, x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Index of the valid time nearest `t` in `valid` (distinct, ascending), a tie going to the later
 * one; -1 when none lies within `maxOffsetMs` (inclusive). Allocates nothing.
 */
export function nearestValidIndex (valid: ArrayLike<number>, t: number, maxOffsetMs: number): number {
  const k = upperBound(valid, t)
  // candidates: the last valid time ≤ t and the first > t
  let best = k - 1
  if (k < valid.length && (best < 0 || valid[k] - t <= t - valid[best])) best = k
  if (best < 0 || Math.abs(valid[best] - t) > maxOffsetMs) return -1
  return best
}
