// Ensembles (docs/DESIGN.md §7, beyond Tawhiri): members perturbing the ascent rate, burst
// altitude and descent rate normally from a seed, and the spread of their landings. Pure.
import { greatCircleKm } from './models.js'

export interface FlightParameters {
  ascentRate: number
  burstAltitude: number
  descentRate: number
}

/** The ensemble's spread, its defaults filled. */
export interface Spread {
  members: number
  ascentRateSd: number
  burstAltitudeSd: number
  descentRateSd: number
  seed: number
}

/** A draw is redrawn while it breaks a bound (rate ≤ 0, burst not above the launch) at most this often. */
const MAX_REDRAWS = 64

/** mulberry32: a small, fast 32-bit generator; the same seed gives the same sequence on every platform. */
export function uniforms (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Standard normal draws (Box–Muller, both values used). */
export function normals (seed: number): () => number {
  const u = uniforms(seed)
  let spare = NaN
  return () => {
    if (!Number.isNaN(spare)) {
      const s = spare
      spare = NaN
      return s
    }
    let u1 = u()
    while (u1 === 0) u1 = u()
    const r = Math.sqrt(-2 * Math.log(u1))
    const theta = 2 * Math.PI * u()
    spare = r * Math.sin(theta)
    return r * Math.cos(theta)
  }
}

/**
 * The members' parameters: member 0 the nominal flight; the others drawn normally around it, each
 * value redrawn until it is valid (rates positive, burst above the launch) — a normal truncated to
 * its valid range — or the nominal value when MAX_REDRAWS draws all failed.
 */
export function members (nominal: FlightParameters, spread: Spread, launchAltitude: number): FlightParameters[] {
  const draw = normals(spread.seed)
  const value = (mean: number, sd: number, valid: (x: number) => boolean): number => {
    if (sd === 0) return mean
    for (let k = 0; k < MAX_REDRAWS; k++) {
      const x = mean + sd * draw()
      if (valid(x)) return x
    }
    return mean
  }
  const out: FlightParameters[] = [nominal]
  for (let m = 1; m < spread.members; m++) {
    out.push({
      ascentRate: value(nominal.ascentRate, spread.ascentRateSd, (x) => x > 0),
      burstAltitude: value(nominal.burstAltitude, spread.burstAltitudeSd, (x) => x > launchAltitude),
      descentRate: value(nominal.descentRate, spread.descentRateSd, (x) => x > 0)
    })
  }
  return out
}

export interface LandingSpread {
  members_landed: number
  mean_latitude: number
  mean_longitude: number
  p50_distance_km: number
  p95_distance_km: number
  max_distance_km: number
}

/**
 * The landings' spread: their mean position (the mean of their unit vectors, so it is right
 * across the antimeridian), and quantiles of their great-circle distances from it (linear
 * between order statistics, as numpy's default). null without landings.
 */
export function landingSpread (latitudes: readonly number[], longitudes: readonly number[]): LandingSpread | null {
  const n = latitudes.length
  if (n === 0) return null
  let x = 0
  let y = 0
  let z = 0
  for (let k = 0; k < n; k++) {
    const phi = latitudes[k] * Math.PI / 180
    const lambda = longitudes[k] * Math.PI / 180
    x += Math.cos(phi) * Math.cos(lambda)
    y += Math.cos(phi) * Math.sin(lambda)
    z += Math.sin(phi)
  }
  const meanLat = Math.atan2(z, Math.hypot(x, y)) * 180 / Math.PI
  let meanLon = Math.atan2(y, x) * 180 / Math.PI
  if (meanLon < 0) meanLon += 360
  const d = latitudes.map((lat, k) => greatCircleKm(meanLat, meanLon, lat, longitudes[k])).sort((a, b) => a - b)
  return {
    members_landed: n,
    mean_latitude: meanLat,
    mean_longitude: meanLon >= 360 ? 0 : meanLon,
    p50_distance_km: quantile(d, 0.5),
    p95_distance_km: quantile(d, 0.95),
    max_distance_km: d[n - 1]
  }
}

/** Linear interpolation between the order statistics of sorted values (numpy's default). */
export function quantile (sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.min(sorted.length - 1, lo + 1)
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo])
}
