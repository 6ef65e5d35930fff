import type { Column } from './column.js'
import { moistAirDensity } from './density.js'
import { relativeHumidityLiquid } from './humidity.js'
import { windDirectionFrom, windSpeed } from './wind.js'
import { findLevel, lerp, levelFraction, onLevel } from './levels.js'
import { powerLawShare } from './surface-layer.js'

/** AtmosphereLevel fields (docs/INTERFACE.md §2.3) in output order: the layout of writeLevel's output row. */
export const LEVEL_FIELDS = [
  'altitude_agl_m', 'altitude_msl_m', 'wind_u_ms', 'wind_v_ms', 'wind_speed_ms', 'wind_direction_deg',
  'temperature_k', 'pressure_pa', 'specific_humidity_kg_kg', 'relative_humidity_pct', 'density_kg_m3'
] as const
export type LevelField = typeof LEVEL_FIELDS[number]
export const LEVEL_FIELD_COUNT = LEVEL_FIELDS.length

/** Slots of columnValuesAt's output. */
export const AT_U = 0
export const AT_V = 1
export const AT_T = 2
export const AT_Q = 3
export const AT_LNP = 4
export const AT_P = 5

/**
 * The column's u, v, T, q, ln p and p at geometric height zMsl into out[AT_U … AT_P]: u, v, T, q
 * linear in z and ln p linear in z (docs/DESIGN.md §4); a height on a level gives that level's own
 * values (its own pressure, not exp(ln p)). Heights beyond the column take the end level: callers
 * check coverage first (or clamp on purpose). Under a surface layer's 10 m wind, the wind is the
 * power law's (docs/DESIGN.md §8). No allocation.
 */
export function columnValuesAt (column: Column, zMsl: number, out: Float64Array): void {
  const { z_m: zs, count } = column
  const i = findLevel(zs, count, zMsl)
  if (onLevel(zs, count, i, zMsl)) {
    out[AT_U] = column.u_ms[i]
    out[AT_V] = column.v_ms[i]
    out[AT_T] = column.t_k[i]
    out[AT_Q] = column.q_kg_kg[i]
    out[AT_LNP] = column.ln_pressure[i]
    out[AT_P] = column.pressure_pa[i]
  } else {
    const f = levelFraction(zs, i, zMsl)
    out[AT_U] = lerp(column.u_ms[i], column.u_ms[i + 1], f)
    out[AT_V] = lerp(column.v_ms[i], column.v_ms[i + 1], f)
    out[AT_T] = lerp(column.t_k[i], column.t_k[i + 1], f)
    out[AT_Q] = lerp(column.q_kg_kg[i], column.q_kg_kg[i + 1], f)
    out[AT_LNP] = lerp(column.ln_pressure[i], column.ln_pressure[i + 1], f)
    out[AT_P] = Math.exp(out[AT_LNP])
  }
  if (zMsl < column.power_law_below_m_msl) {
    const share = powerLawShare(zMsl - column.model_ground_elevation_m_msl)
    out[AT_U] = column.wind_u_10m * share
    out[AT_V] = column.wind_v_10m * share
  }
}

const at = new Float64Array(6)

/**
 * Interpolates the column at geometric height zMsl (columnValuesAt) and writes one AtmosphereLevel
 * row (LEVEL_FIELDS order) into out[offset …]. No allocation.
 */
export function writeLevel (column: Column, altitudeAgl: number, zMsl: number, out: Float64Array,
  offset: number): void {
  columnValuesAt(column, zMsl, at)
  const u = at[AT_U]
  const v = at[AT_V]
  const t = at[AT_T]
  const q = at[AT_Q]
  const p = at[AT_P]
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
