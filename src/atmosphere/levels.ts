// The vertical interpolation's rule, once (docs/DESIGN.md §4): which level pair a height falls
// between, whether it sits on a level, and how far up the pair it is. Heights are read from any
// array at an offset (mapbox/pbf style, no allocation), so the profile's column (its own z_m) and
// the samples kernel's packed column records (src/samples/column-store.ts) share it.

/**
 * Lower index i of the level pair around height z among the `count` ascending heights
 * zs[start …]: zs[start + i] ≤ z < zs[start + i + 1]. Below the first level (or NaN) gives 0; at
 * or above the last gives count − 1. `hint`, a level found for a nearby height (neighbouring
 * columns put a height between the same levels, mostly), starts a walk from there instead of
 * the binary search; −1: none.
 */
export function findLevel (zs: ArrayLike<number>, count: number, z: number, start = 0, hint = -1): number {
  if (hint >= 0) {
    let i = hint < count ? hint : count - 1
    while (i < count - 1 && z >= zs[start + i + 1]) i++
    while (i > 0 && z < zs[start + i]) i--
    return i
  }
  if (!(z >= zs[start])) return 0
  let lo = 0
  let hi = count - 1
  if (z >= zs[start + hi]) return hi
  // Invariant: zs[start + lo] ≤ z < zs[start + hi].
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1
    if (zs[start + mid] <= z) lo = mid
    else hi = mid
  }
  return lo
}

/**
 * Whether level i (findLevel's) answers height z alone, with its own values (its own pressure,
 * not exp(ln p)): z on it, or beyond an end of the column.
 */
export function onLevel (zs: ArrayLike<number>, count: number, i: number, z: number, start = 0): boolean {
  const lower = zs[start + i]
  return z === lower || i === count - 1 || !(z > lower)
}

/** How far height z lies from level i towards level i + 1, in (0, 1), when not onLevel. */
export function levelFraction (zs: ArrayLike<number>, i: number, z: number, start = 0): number {
  const lower = zs[start + i]
  return (z - lower) / (zs[start + i + 1] - lower)
}

/** A value `f` of the way from `lower` to `upper`: u, v, T, q and ln p are linear in height. */
export function lerp (lower: number, upper: number, f: number): number {
  return lower + f * (upper - lower)
}
