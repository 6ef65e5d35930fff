// Filling a grid point's column (docs/DESIGN.md §4, and §8's surface layer when asked) from its
// decoded levels, without allocating.
import type { Column, ColumnInput, ColumnSource, LevelSeries } from './column.js'
import { createColumn } from './column.js'
import { geometricHeight } from './height.js'
import { specificHumidityFromNcepRh } from './humidity.js'
import { joinSurfaceLayer, SURFACE_FIELDS } from './surface-layer.js'

const SURFACE_FIELD_COUNT = SURFACE_FIELDS.length

function at (s: LevelSeries, k: number): number {
  return s.data[s.offset + k * s.stride]
}

function anyFinite (s: LevelSeries, n: number): boolean {
  for (let k = 0; k < n; k++) if (Number.isFinite(at(s, k))) return true
  return false
}

/**
 * Builds the column of one grid point into `out` without allocating (docs/DESIGN.md §4):
 * - keeps levels where HGT, TMP, UGRD, VGRD and the humidity variable are all finite;
 * - drops levels whose geometric height is strictly below the model terrain — always the model's,
 *   whatever ground the caller supplies, because below it the model has no atmosphere;
 * - sorts by height (insertion sort: ≤ 41 levels, stable for equal heights).
 * Humidity is decided once per column, so provenance can name one source: SPFH when any level
 * has a finite SPFH value (current GFS); then a level lacking SPFH is dropped even if it has RH,
 * rather than mixing two definitions of q in one profile. Otherwise q comes from RH by NCEP's
 * inversion (GFS v15). A negative decoded q (packing noise) is taken as 0: q ≥ 0 by contract.
 * A level list with a non-positive or non-finite pressure is a caller bug and throws.
 * With `surfaceLayer` the model's near-ground fields (src.surface) are joined under the levels
 * (surface-layer.ts); `out` then needs room for SURFACE_NODE_CAPACITY more entries.
 */
export function fillColumn (src: ColumnSource, out: Column, surfaceLayer = false): Column {
  const n = src.level_count
  if (n > out.z_m.length) {
    throw new RangeError(`column capacity ${out.z_m.length} is smaller than ${n} levels`)
  }
  const useSpfh = src.spfh_kg_kg !== null && anyFinite(src.spfh_kg_kg, n)
  const humidity = useSpfh ? src.spfh_kg_kg : src.rh_pct
  const ground = geometricHeight(src.surface_hgt_gpm)
  out.model_ground_elevation_m_msl = ground
  out.specific_humidity_source = useSpfh ? 'spfh' : 'rh_inverted_ncep_upp'
  out.count = 0
  out.surface_layer = null
  out.power_law_below_m_msl = -Infinity
  if (humidity === null) return out

  const { z_m: zs, pressure_pa: ps, ln_pressure: lnps, u_ms: us, v_ms: vs, t_k: ts, q_kg_kg: qs } = out
  let count = 0
  for (let k = 0; k < n; k++) {
    const p = at(src.pressure_pa, k)
    if (!(p > 0) || p === Infinity) throw new RangeError(`level ${k}: pressure ${p} Pa is not a positive finite number`)
    const h = at(src.hgt_gpm, k)
    const t = at(src.tmp_k, k)
    const u = at(src.ugrd_ms, k)
    const v = at(src.vgrd_ms, k)
    const hum = at(humidity, k)
    const complete = Number.isFinite(h) && Number.isFinite(t) && Number.isFinite(u) && Number.isFinite(v) &&
      Number.isFinite(hum)
    if (!complete) continue
    const z = geometricHeight(h)
    if (z < ground) continue
    const q = useSpfh ? hum : specificHumidityFromNcepRh(hum, t, p)

    let j = count
    while (j > 0 && zs[j - 1] > z) {
      zs[j] = zs[j - 1]; ps[j] = ps[j - 1]; lnps[j] = lnps[j - 1]
      us[j] = us[j - 1]; vs[j] = vs[j - 1]; ts[j] = ts[j - 1]; qs[j] = qs[j - 1]
      j--
    }
    zs[j] = z; ps[j] = p; lnps[j] = Math.log(p)
    us[j] = u; vs[j] = v; ts[j] = t; qs[j] = q < 0 ? 0 : q
    count++
  }
  out.count = count
  if (surfaceLayer) {
    const s = src.surface
    if (s === null || s === undefined || count === 0) out.surface_layer = 'unavailable'
    else joinSurfaceLayer(out, surfaceValues(s))
  }
  return out
}

// the surface fields of the column being filled, read once from their series
const surfaceRead = new Float64Array(SURFACE_FIELD_COUNT)

function surfaceValues (s: LevelSeries): Float64Array {
  for (let k = 0; k < SURFACE_FIELD_COUNT; k++) surfaceRead[k] = at(s, k)
  return surfaceRead
}

function series (values: Float64Array): LevelSeries {
  return { data: values, offset: 0, stride: 1 }
}

/** The plain-object entry point: a list of decoded levels plus surface HGT → a fresh column. */
export function buildColumn (input: ColumnInput): Column {
  const n = input.levels.length
  const vars = {
    pressure_pa: new Float64Array(n),
    hgt_gpm: new Float64Array(n),
    tmp_k: new Float64Array(n),
    ugrd_ms: new Float64Array(n),
    vgrd_ms: new Float64Array(n),
    spfh_kg_kg: new Float64Array(n),
    rh_pct: new Float64Array(n)
  }
  for (let k = 0; k < n; k++) {
    const l = input.levels[k]
    vars.pressure_pa[k] = l.pressure_pa
    vars.hgt_gpm[k] = l.hgt_gpm ?? NaN
    vars.tmp_k[k] = l.tmp_k ?? NaN
    vars.ugrd_ms[k] = l.ugrd_ms ?? NaN
    vars.vgrd_ms[k] = l.vgrd_ms ?? NaN
    vars.spfh_kg_kg[k] = l.spfh_kg_kg ?? NaN
    vars.rh_pct[k] = l.rh_pct ?? NaN
  }
  return fillColumn({
    level_count: n,
    surface_hgt_gpm: input.surface_hgt_gpm ?? NaN,
    pressure_pa: series(vars.pressure_pa),
    hgt_gpm: series(vars.hgt_gpm),
    tmp_k: series(vars.tmp_k),
    ugrd_ms: series(vars.ugrd_ms),
    vgrd_ms: series(vars.vgrd_ms),
    // All-absent series behave as "not in the file": fillColumn only takes SPFH if a value is finite.
    spfh_kg_kg: series(vars.spfh_kg_kg),
    rh_pct: series(vars.rh_pct)
  }, createColumn(n))
}
