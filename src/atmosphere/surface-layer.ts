// The surface layer (docs/DESIGN.md §8): the model's own near-ground fields joined under the
// pressure levels, so a column starts at the model ground. Each variable is linear in height over
// its own nodes followed by the kept pressure levels; the join writes those piecewise-linear
// functions at the union of every variable's node heights, so the column's one linear rule
// (levels.ts) reproduces each of them exactly. The one exception, wind below 10 m (a 1/7 power
// law, 0 at the ground), is the rule `powerLawShare` that every reader of a column applies.
import type { Column } from './column.js'
import { specificHumidityFromNcepRh } from './humidity.js'
import { lerp } from './levels.js'

/** The near-ground fields a column reads, in this order: heights in m above the model ground (0: the surface). */
export const SURFACE_FIELDS = [
  ['pressure', 0], ['pressure', 80],
  ['temperature', 2], ['temperature', 80], ['temperature', 100],
  ['specific_humidity', 2], ['specific_humidity', 80],
  ['relative_humidity', 2],
  ['wind_u', 10], ['wind_u', 20], ['wind_u', 30], ['wind_u', 40], ['wind_u', 50], ['wind_u', 80], ['wind_u', 100],
  ['wind_v', 10], ['wind_v', 20], ['wind_v', 30], ['wind_v', 40], ['wind_v', 50], ['wind_v', 80], ['wind_v', 100]
] as const
export type SurfaceVariable = typeof SURFACE_FIELDS[number][0]

/** Each variable's fields: the first's index in SURFACE_FIELDS and their heights, ascending. */
function group (variable: SurfaceVariable): { first: number, heights: number[] } {
  const first = SURFACE_FIELDS.findIndex(([v]) => v === variable)
  return { first, heights: SURFACE_FIELDS.filter(([v]) => v === variable).map(([, h]) => h) }
}
const PRESSURE = group('pressure')
const TEMPERATURE = group('temperature')
const SPFH = group('specific_humidity')
const RH = group('relative_humidity')
const WIND_U = group('wind_u')
const WIND_V = group('wind_v')

/**
 * §8's precision rule: a field is a node only when its packing step is at most its variable's
 * tolerance (GFS often packs TMP at 80 and 100 m in whole kelvins: as nodes they made 1 K steps in 20 m).
 */
export const SURFACE_TOLERANCES: Readonly<Record<SurfaceVariable, number>> = {
  pressure: 10, temperature: 0.1, specific_humidity: 1e-5, relative_humidity: 0.5, wind_u: 0.1, wind_v: 0.1
}
/** The unit each tolerance is in. */
export const TOLERANCE_UNITS: Readonly<Record<SurfaceVariable, string>> = {
  pressure: 'Pa', temperature: 'K', specific_humidity: 'kg/kg', relative_humidity: '%', wind_u: 'm/s', wind_v: 'm/s'
}

/**
 * Which SURFACE_FIELDS entries a unit's columns use as nodes, given each one's packing step (NaN or
 * undefined: the unit lacks it): those at most their tolerance, and wind only at heights where both
 * components are (so the nodes of "wind" are one list of heights).
 */
export function surfaceNodesUsed (steps: ReadonlyArray<number | undefined>): boolean[] {
  const fine = SURFACE_FIELDS.map(([variable], k) => {
    const step = steps[k]
    return step !== undefined && step <= SURFACE_TOLERANCES[variable]
  })
  for (let k = 0; k < WIND_U.heights.length; k++) {
    const both = fine[WIND_U.first + k] && fine[WIND_V.first + k]
    fine[WIND_U.first + k] = both
    fine[WIND_V.first + k] = both
  }
  return fine
}

/** The heights (m above the model ground) each variable's nodes stand at, as provenance names them. */
export interface SurfaceLayerNodes {
  wind: number[]
  temperature: number[]
  specific_humidity: number[]
  pressure: number[]
}

/**
 * Provenance's `surface_layer_nodes` for a unit whose fields `used` (SURFACE_FIELDS order) are its
 * nodes; q's 2 m node is RH's at 2 m when SPFH at 2 m is not used.
 */
export function surfaceLayerNodes (used: readonly boolean[]): SurfaceLayerNodes {
  const at = (g: { first: number, heights: number[] }): number[] => g.heights.filter((_, k) => used[g.first + k])
  const q = at(SPFH)
  if (!used[SPFH.first] && used[RH.first]) q.unshift(RH.heights[0])
  return { wind: at(WIND_U), temperature: at(TEMPERATURE), specific_humidity: q, pressure: at(PRESSURE) }
}

/** Height (m above the model ground) of the lowest wind field; below it the power law holds. */
export const WIND_FIELD_HEIGHT_M = 10
/** Distinct node heights a joined column may have under its pressure levels. */
export const SURFACE_NODE_CAPACITY = new Set(SURFACE_FIELDS.map(([, h]) => h)).size

/**
 * The share of the 10 m wind at h m above the model ground, below 10 m: (h/10)^(1/7), the power
 * law of a neutral surface layer; 0 at (and below) the ground.
 */
export function powerLawShare (h: number): number {
  return h > 0 ? Math.pow(h / WIND_FIELD_HEIGHT_M, 1 / 7) : 0
}

/**
 * Whether the fields `has` says are present meet §8's minimum: surface pressure, temperature and
 * humidity (SPFH, else RH) at 2 m, wind at 10 m. `has(k)`: SURFACE_FIELDS entry k.
 */
export function meetsSurfaceMinimum (has: (k: number) => boolean): boolean {
  return has(PRESSURE.first) && has(TEMPERATURE.first) && (has(SPFH.first) || has(RH.first)) &&
    has(WIND_U.first) && has(WIND_V.first)
}

// scratch for one variable's nodes (heights above ground, values): nothing allocated per column
const nodeH = new Float64Array(8)
const nodeV = new Float64Array(8)
const heights = new Float64Array(SURFACE_NODE_CAPACITY)

/** The fields of `g` present (finite) in `s`, as nodes into nodeH/nodeV; their count. */
function nodesOf (s: ArrayLike<number>, g: { first: number, heights: number[] }): number {
  let n = 0
  for (let k = 0; k < g.heights.length; k++) {
    const value = s[g.first + k]
    if (Number.isFinite(value)) { nodeH[n] = g.heights[k]; nodeV[n] = value; n++ }
  }
  return n
}

/**
 * The value at h (m above ground) of a variable with nodes nodeH/nodeV[0, n) continued by the
 * first kept pressure level (hAbove, vAbove; NaN height: none): linear in height, the lowest
 * node's value below it, the highest's above all.
 */
function valueAt (n: number, h: number, hAbove: number, vAbove: number): number {
  if (h <= nodeH[0]) return nodeV[0]
  for (let k = 1; k < n; k++) {
    if (h <= nodeH[k]) return lerp(nodeV[k - 1], nodeV[k], (h - nodeH[k - 1]) / (nodeH[k] - nodeH[k - 1]))
  }
  const last = n - 1
  if (Number.isNaN(hAbove)) return nodeV[last]
  return lerp(nodeV[last], vAbove, (h - nodeH[last]) / (hAbove - nodeH[last]))
}

/** One wind component at the union's nodes: the power law below its 10 m field, linear above. */
function windNodes (
  s: ArrayLike<number>, variable: { first: number, heights: number[] }, out: Float64Array, count: number,
  hAbove: number
): void {
  const n = nodesOf(s, variable)
  const at10 = nodeV[0]
  for (let k = 0; k < count; k++) {
    out[k] = heights[k] < WIND_FIELD_HEIGHT_M
      ? at10 * powerLawShare(heights[k])
      : valueAt(n, heights[k], hAbove, out[count])
  }
}

/**
 * Joins the surface layer under a filled column (its pressure levels, sorted, above the model
 * ground) in place: surface fields `s` (SURFACE_FIELDS order, NaN where absent). Sets
 * column.surface_layer; without §8's minimum (surface pressure, T and humidity at 2 m, wind at
 * 10 m) the column stays as it is, 'unavailable'. The column's arrays need room for
 * SURFACE_NODE_CAPACITY more entries.
 */
export function joinSurfaceLayer (column: Column, s: ArrayLike<number>): void {
  const g = column.model_ground_elevation_m_msl
  if (!Number.isFinite(g) || !meetsSurfaceMinimum((k) => Number.isFinite(s[k]))) {
    column.surface_layer = 'unavailable'
    return
  }
  // the union of the nodes' heights, ascending (every field present is a node of its variable)
  let count = 0
  for (let k = 0; k < SURFACE_FIELDS.length; k++) {
    if (k === RH.first && Number.isFinite(s[SPFH.first])) continue
    if (!Number.isFinite(s[k])) continue
    const h = SURFACE_FIELDS[k][1]
    let at = count
    while (at > 0 && heights[at - 1] > h) at--
    if (at > 0 && heights[at - 1] === h) continue
    heights.copyWithin(at + 1, at, count)
    heights[at] = h
    count++
  }
  // pressure levels are kept strictly above the highest node
  const top = g + heights[count - 1]
  let drop = 0
  while (drop < column.count && column.z_m[drop] <= top) drop++
  const kept = column.count - drop
  if (count + kept > column.z_m.length) {
    throw new RangeError(`column capacity ${column.z_m.length} is smaller than ${count + kept} nodes`)
  }
  const { z_m: zs, pressure_pa: p, ln_pressure: lnp, t_k: t, q_kg_kg: q } = column
  const end = column.count
  zs.copyWithin(count, drop, end); p.copyWithin(count, drop, end); lnp.copyWithin(count, drop, end)
  column.u_ms.copyWithin(count, drop, end); column.v_ms.copyWithin(count, drop, end)
  t.copyWithin(count, drop, end); q.copyWithin(count, drop, end)
  const hAbove = kept > 0 ? zs[count] - g : NaN
  // ln p first: q at 2 m from RH needs p there
  let n = nodesOf(s, PRESSURE)
  for (let k = 0; k < n; k++) nodeV[k] = Math.log(nodeV[k])
  for (let k = 0; k < count; k++) {
    zs[k] = g + heights[k]
    lnp[k] = valueAt(n, heights[k], hAbove, lnp[count])
    p[k] = Math.exp(lnp[k])
    // a node of the pressure field keeps its own pressure, as a pressure level does
    for (let m = 0; m < PRESSURE.heights.length; m++) {
      const own = s[PRESSURE.first + m]
      if (PRESSURE.heights[m] === heights[k] && Number.isFinite(own)) p[k] = own
    }
  }
  n = nodesOf(s, TEMPERATURE)
  for (let k = 0; k < count; k++) t[k] = valueAt(n, heights[k], hAbove, t[count])
  n = nodesOf(s, SPFH)
  if (!Number.isFinite(s[SPFH.first])) {
    // q at 2 m from RH at 2 m (NCEP's inversion, as for a pressure level), the others SPFH's
    nodeH.copyWithin(1, 0, n); nodeV.copyWithin(1, 0, n)
    const at2 = heights.indexOf(RH.heights[0])
    nodeH[0] = RH.heights[0]
    nodeV[0] = specificHumidityFromNcepRh(s[RH.first], t[at2], p[at2])
    n++
  }
  for (let k = 0; k < n; k++) if (nodeV[k] < 0) nodeV[k] = 0
  for (let k = 0; k < count; k++) q[k] = valueAt(n, heights[k], hAbove, q[count])
  windNodes(s, WIND_U, column.u_ms, count, hAbove)
  windNodes(s, WIND_V, column.v_ms, count, hAbove)
  column.count = count + kept
  column.surface_layer = 'gfs_height_above_ground'
  column.wind_u_10m = s[WIND_U.first]
  column.wind_v_10m = s[WIND_V.first]
  column.power_law_below_m_msl = g + WIND_FIELD_HEIGHT_M
}
