// A grid point's column: where it is read from (ColumnSource, LevelSeries) and what filling it
// gives (Column: sorted by height, float64); fill.ts fills one.
import type { SpecificHumiditySource, SurfaceLayerState } from './methods.js'

/** One isobaric level as decoded; null, undefined or NaN mean "absent". */
export interface LevelInput {
  pressure_pa: number
  hgt_gpm: number | null
  tmp_k: number | null
  ugrd_ms: number | null
  vgrd_ms: number | null
  spfh_kg_kg?: number | null
  rh_pct?: number | null
}

/** The values at one grid point, in any level order. */
export interface ColumnInput {
  surface_hgt_gpm: number | null
  levels: readonly LevelInput[]
}

/**
 * One variable over the levels, read at `data[offset + k * stride]` for level k: a view straight
 * into a decoded Float32Array tile ([variable][level][lat][lon]) or a plain per-level array.
 */
export interface LevelSeries {
  readonly data: ArrayLike<number>
  readonly offset: number
  readonly stride: number
}

/** Where fillColumn reads a grid point's levels from. A null humidity series means "not in the file". */
export interface ColumnSource {
  readonly level_count: number
  readonly surface_hgt_gpm: number
  readonly pressure_pa: LevelSeries
  readonly hgt_gpm: LevelSeries
  readonly tmp_k: LevelSeries
  readonly ugrd_ms: LevelSeries
  readonly vgrd_ms: LevelSeries
  readonly spfh_kg_kg: LevelSeries | null
  readonly rh_pct: LevelSeries | null
  /** The near-ground fields in SURFACE_FIELDS order (surface-layer.ts), NaN where absent; null: none read. */
  readonly surface?: LevelSeries | null
}

/**
 * A usable column: entries [0, count) of each array, sorted by ascending geometric height, all
 * float64. q is already formed per level (SPFH or inverted RH), so interpolation never sees RH.
 * Arrays may be longer than `count` so one column can be reused for many grid points.
 */
export interface Column {
  count: number
  readonly z_m: Float64Array
  readonly pressure_pa: Float64Array
  readonly ln_pressure: Float64Array
  readonly u_ms: Float64Array
  readonly v_ms: Float64Array
  readonly t_k: Float64Array
  readonly q_kg_kg: Float64Array
  /** Geometric height of the model terrain (surface HGT); NaN when the file has none here. */
  model_ground_elevation_m_msl: number
  specific_humidity_source: SpecificHumiditySource
  /** The surface layer joined, or asked for and unavailable; null when not asked (docs/DESIGN.md §8). */
  surface_layer: SurfaceLayerState | null
  /** Below this height (m MSL) wind follows the power law from its 10 m values; −Infinity without the layer. */
  power_law_below_m_msl: number
  wind_u_10m: number
  wind_v_10m: number
}

export function createColumn (capacity: number): Column {
  return {
    count: 0,
    z_m: new Float64Array(capacity),
    pressure_pa: new Float64Array(capacity),
    ln_pressure: new Float64Array(capacity),
    u_ms: new Float64Array(capacity),
    v_ms: new Float64Array(capacity),
    t_k: new Float64Array(capacity),
    q_kg_kg: new Float64Array(capacity),
    model_ground_elevation_m_msl: NaN,
    specific_humidity_source: 'spfh',
    surface_layer: null,
    power_law_below_m_msl: -Infinity,
    wind_u_10m: NaN,
    wind_v_10m: NaN
  }
}
