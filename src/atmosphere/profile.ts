import type { Column } from './column.js'
import {
  type AltitudeReference, type VerticalCoverage, isWithinCoverage, toAgl, toMsl, verticalCoverage
} from './coverage.js'
import { LEVEL_FIELD_COUNT, writeLevel } from './interpolate.js'
import type { SpecificHumiditySource, SurfaceLayerState } from './methods.js'

/** Seed 2.3: every field required. */
export interface AtmosphereLevel {
  altitude_agl_m: number
  altitude_msl_m: number
  wind_u_ms: number
  wind_v_ms: number
  wind_speed_ms: number
  wind_direction_deg: number
  temperature_k: number
  pressure_pa: number
  specific_humidity_kg_kg: number
  relative_humidity_pct: number
  density_kg_m3: number
}

export interface ProfileRequest {
  altitudes_m: readonly number[]
  altitude_reference: AltitudeReference
  /** The caller's ground (m MSL); null or absent means "use the model terrain". */
  ground_elevation_m_msl?: number | null
}

/** Seed 2.2's ground fields, as the response and a 409 both report them. */
export interface GroundFacts {
  ground_elevation_m_msl: number
  model_ground_elevation_m_msl: number
  supplied_ground_elevation_m_msl: number | null
  ground_source: 'caller' | 'model'
}

export interface ProfileOk extends GroundFacts {
  ok: true
  levels: AtmosphereLevel[]
  coverage: VerticalCoverage
  specific_humidity_source: SpecificHumiditySource
  /** Whether the column joined the surface layer; null when it was not asked for. */
  surface_layer: SurfaceLayerState | null
}

/** 409: some requested height lies outside the column; carries the coverage to publish. */
export interface OutsideVerticalRange extends GroundFacts {
  ok: false
  error: 'outside_vertical_range'
  coverage: VerticalCoverage
  /** The offending requested heights, in request order and reference (for a detail message). */
  outside_altitudes_m: number[]
}

/** 502: the grid point has no model terrain or no complete level. */
export interface UnusableSourceColumn {
  ok: false
  error: 'unusable_source_column'
  detail: string
}

export type ProfileResult = ProfileOk | OutsideVerticalRange | UnusableSourceColumn

/** Ground in use and the grounds it was chosen from (docs/INTERFACE.md §2.2). */
export function groundFacts (column: Column, supplied: number | null | undefined): GroundFacts {
  const model = column.model_ground_elevation_m_msl
  return supplied == null
    ? { ground_elevation_m_msl: model, model_ground_elevation_m_msl: model, supplied_ground_elevation_m_msl: null,
      ground_source: 'model' }
    : { ground_elevation_m_msl: supplied, model_ground_elevation_m_msl: model,
      supplied_ground_elevation_m_msl: supplied, ground_source: 'caller' }
}

/**
 * Writes one AtmosphereLevel row per requested height (request order) into out, which holds
 * altitudes.length × LEVEL_FIELD_COUNT numbers. The requested reference is echoed exactly and the
 * other derived from the ground: MSL = AGL + ground, AGL = MSL − ground. No allocation.
 */
export function writeLevels (
  column: Column, altitudes: ArrayLike<number>, reference: AltitudeReference, groundMsl: number, out: Float64Array
): void {
  for (let k = 0; k < altitudes.length; k++) {
    const a = altitudes[k]
    writeLevel(column, toAgl(a, reference, groundMsl), toMsl(a, reference, groundMsl), out, k * LEVEL_FIELD_COUNT)
  }
}

/**
 * The atmosphere room's one entry point: a built column and the request's vertical part → levels or a typed refusal.
 */
export function computeProfile (column: Column, request: ProfileRequest): ProfileResult {
  if (!Number.isFinite(column.model_ground_elevation_m_msl)) {
    return { ok: false, error: 'unusable_source_column',
      detail: 'no finite model terrain height (surface HGT) at the grid point' }
  }
  if (column.count === 0) {
    return { ok: false, error: 'unusable_source_column',
      detail: 'no pressure level with HGT, TMP, UGRD, VGRD and humidity above the model terrain' }
  }
  const ground = groundFacts(column, request.ground_elevation_m_msl)
  const coverage = verticalCoverage(column, ground.ground_elevation_m_msl)
  const { altitudes_m: altitudes, altitude_reference: reference } = request
  const outside = altitudes.filter(a => !isWithinCoverage(coverage, a, reference))
  if (outside.length > 0) {
    return { ok: false, error: 'outside_vertical_range', coverage, outside_altitudes_m: outside, ...ground }
  }
  const rows = new Float64Array(altitudes.length * LEVEL_FIELD_COUNT)
  writeLevels(column, altitudes, reference, ground.ground_elevation_m_msl, rows)
  const levels: AtmosphereLevel[] = []
  for (let k = 0; k < altitudes.length; k++) levels.push(levelAt(rows, k * LEVEL_FIELD_COUNT))
  return { ok: true, levels, coverage, specific_humidity_source: column.specific_humidity_source,
    surface_layer: column.surface_layer, ...ground }
}

/** One output row as an AtmosphereLevel object (for JSON responses). */
export function levelAt (rows: Float64Array, offset: number): AtmosphereLevel {
  return {
    altitude_agl_m: rows[offset],
    altitude_msl_m: rows[offset + 1],
    wind_u_ms: rows[offset + 2],
    wind_v_ms: rows[offset + 3],
    wind_speed_ms: rows[offset + 4],
    wind_direction_deg: rows[offset + 5],
    temperature_k: rows[offset + 6],
    pressure_pa: rows[offset + 7],
    specific_humidity_kg_kg: rows[offset + 8],
    relative_humidity_pct: rows[offset + 9],
    density_kg_m3: rows[offset + 10]
  }
}
