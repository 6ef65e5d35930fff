import type { Column } from './column.js'
import { moistAirDensity } from './density.js'
import { relativeHumidityLiquid } from './humidity.js'
import { windDirectionFrom, windSpeed } from './wind.js'

/** AtmosphereLevel fields (docs/INTERFACE.md §2.3) in output order: the layout of writeLevel's output row. */
export const LEVEL_FIELDS = [
  'altitude_agl_m', 'altitude_msl_m', 'wind_u_ms', 'wind_v_ms', 'wind_speed_ms', 'wind_direction_deg',
  'temperature_k', 'pressure_pa', 'specific_humidity_kg_kg', 'relative_humidity_pct', 'density_kg_m3'
] as const
export type LevelField = typeof LEVEL_FIELDS[number]
export const LEVEL_FIELD_COUNT = LEVEL_FIELDS.length

/**
 * Lower index i of the level pair around height z: z_m[i] ≤ z < z_m[i + 1], by binary search over
 * the sorted heights. Below the first level gives 0; at or above the last gives count − 1.
 */
export function findLevel (zs: ArrayLike<number>, count: number, z: number): number {
  if (!(z >= zs[0])) return 0
  let lo = 0
  let hi = count - 1
  if (z >= zs[hi]) return hi
  // Invariant: zs[lo] ≤ z < zs[hi].
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1
    if (zs[mid] <= z) lo = mid
    else hi = mid
  }
  return lo
}

/**
 * Interpolates the column at geometric height zMsl and writes one AtmosphereLevel row (LEVEL_FIELDS
 * order) into out[offset …]. u, v, T, q linear in z and ln p linear in z (docs/DESIGN.md §4); a height
 * on a level returns that level's own values (including its pressure, not exp(ln p)). Heights
 * beyond the column take the end level: callers check coverage first. No allocation.
 */
export function writeLevel (column: Column, altitudeAgl: number, zMsl: number, out: Float64Array,
  offset: number): void {
  const { z_m: zs, count } = column
  const i = findLevel(zs, count, zMsl)
  let u: number, v: number, t: number, q: number, p: number
  if (zMsl === zs[i] || i === count - 1 || !(zMsl > zs[i])) {
    u = column.u_ms[i]; v = column.v_ms[i]; t = column.t_k[i]; q = column.q_kg_kg[i]; p = column.pressure_pa[i]
  } else {
    const w = (zMsl - zs[i]) / (zs[i + 1] - zs[i])
    u = lerp(column.u_ms, i, w)
    v = lerp(column.v_ms, i, w)
    t = lerp(column.t_k, i, w)
    q = lerp(column.q_kg_kg, i, w)
    p = Math.exp(lerp(column.ln_pressure, i, w))
  }
  out[offset] = altitudeAgl
  out[offset + 1] = zMsl
  out[offset + 2] = u
  out[offset + 3] = v
  out[offset + 4] = windSpeed(u, v)
  out[offset + 5] = windDirectionFrom(u, v)
  out[offset + 6] = t
  out[offset + 7] = p
  out[offset + 8] = q
  out[offset + 9] = relativeHumidityLiquid(q, p, t)
  out[offset + 10] = moistAirDensity(p, t, q)
}

function lerp (a: Float64Array, i: number, w: number): number {
  return a[i] + w * (a[i + 1] - a[i])
}
