// The samples kernel (docs/DESIGN.md §6): for a slice of planned points, read each weighted
// column out of this thread's packed column store (filled from the decoded tiles on first use),
// interpolate it at the point's height and blend. Allocation-free per point (mapbox/pbf style:
// plain loops over typed arrays), so the same function runs on the main thread or on a pool
// worker over the same shared arrays.
import { moistAirDensity, relativeHumidityLiquid, windDirectionFrom, windSpeed } from '../atmosphere/index.js'
import { SAMPLE_FIELDS } from '../contract/index.js'
import { createStencil, stencilAt } from '../field/index.js'
import type { LatLonGrid } from '../grib/index.js'
import {
  ColumnStore, REC_COUNT, REC_GROUND, REC_VALUES, REC_Z, V_LNP, V_P, V_Q, V_T, V_U, V_V, type SamplePiece
} from './column-store.js'

export type { SamplePiece } from './column-store.js'

/** Column slots per point: two units in time × four bilinear corners. */
export const SLOTS = 8

/** Status codes (indices of SAMPLE_STATUSES). */
export const OK = 0
export const OUTSIDE_SOURCE = 1
export const OUTSIDE_VERTICAL = 2
export const UNUSABLE = 3

/** Output columns, column-major in `out` (column c of point p at c × n + p): the fields, then these. */
export const OUT_ALTITUDE_MSL = SAMPLE_FIELDS.length
export const OUT_GROUND = SAMPLE_FIELDS.length + 1
export const OUT_COLUMNS = SAMPLE_FIELDS.length + 2

/**
 * Which piece holds a grid point of a (run, step): grid points fall in square cells (a filter
 * tile, or a decoded block of a file); per (run, step) a dense table from cell to piece index
 * (−1: none planned), all tables in one shared array so pool workers read it in place.
 */
export interface PieceCells {
  /** Per (run, step): the cell size in grid points, the cells per grid row, the offset of its table. */
  size: Int32Array
  columns: Int32Array
  offset: Int32Array
  cells: Int32Array
}

/** The piece holding grid point (i, j) of (run, step) rs; −1 when none was planned. */
export function pieceAt (c: PieceCells, rs: number, i: number, j: number): number {
  const size = c.size[rs]
  return c.cells[c.offset[rs] + Math.floor(j / size) * c.columns[rs] + Math.floor(i / size)]
}

/** What the kernel reads of each point, in processing order (gathered by plan.ts). */
export interface PositionInputs {
  x: Float64Array
  y: Float64Array
  before: Int32Array
  after: Int32Array
  weight: Float64Array
  altitude: Float64Array
  ground: Float64Array
}

export interface SampleTask {
  /** The plan's grid (every piece shares its points). */
  grid: LatLonGrid
  /** Decoded pieces by index; null when the piece failed (its status in pieceStatus). */
  pieces: Array<SamplePiece | null>
  pieceStatus: Uint8Array
  /** Which piece holds a grid point of a (run, step). */
  pieceCells: PieceCells
  /** Per piece: the plan's grid point (0, 0) on the piece's own grid (a sub-region tile has its own). */
  shiftI: Int32Array
  shiftJ: Int32Array
  n: number
  /** The slice [start, end) of processing positions this call computes. */
  start: number
  end: number
  /**
   * The point computed at each processing position: a permutation within each slice that puts
   * points reading the same columns next to each other (plan.ts).
   */
  order: Int32Array
  /** Per processing position: what the kernel reads of its point (plan.ts). */
  at: PositionInputs
  agl: boolean
  /** out_of_column: nearest_level. */
  clamp: boolean
  /** The profile's rules: one column, coverage compared in the request's own reference. */
  nearest: boolean
  /** Per point: planning sets non-ok statuses; the kernel sets the rest. */
  status: Uint8Array
  /** Per point: set to 1 where a column was clamped (out_of_column: nearest_level answered); zeroed by the caller. */
  clamped: Uint8Array
  /** OUT_COLUMNS × n, column-major, by point; NaN where a point is not ok (the caller fills it). */
  out: Float64Array
}

const store = new ColumnStore()
/**
 * Per slot (side × 4 + corner, in the order the blend sums them): the last column looked up there,
 * as (run, step), column, row and what it gave (consecutive points mostly share their columns).
 */
const lastRs = new Int32Array(SLOTS)
const lastI = new Int32Array(SLOTS)
const lastJ = new Int32Array(SLOTS)
const lastBase = new Int32Array(SLOTS)
/** The current point's slots: record offset (−1: none) and weight (space × time). */
const bases = new Int32Array(SLOTS)
const weights = new Float64Array(SLOTS)
const slotI = new Int32Array(SLOTS)
const slotJ = new Int32Array(SLOTS)
const stencil = createStencil()

/** lastBase codes besides a record offset: the piece does not hold the point, or failed (−2 − status). */
const NOT_HELD = -1
const FAILED = -2
/** This thread's output rows in processing order, scattered to `out` a column at a time. */
let rows = new Float64Array(0)

export function computeSamples (task: SampleTask): void {
  const {
    grid, pieces, pieceStatus, pieceCells, shiftI, shiftJ, n, start, end, order, agl, clamp, nearest, status, clamped,
    out
  } = task
  const { x: gridX, y: gridY, before: unitBefore, after: unitAfter, weight: timeWeight, altitude, ground } = task.at
  store.prepare(pieces)
  const V = store.valuesOffset
  lastRs.fill(-1)
  const width = end - start
  if (rows.length < width * OUT_COLUMNS) rows = new Float64Array(width * OUT_COLUMNS)
  let data = store.data

  points: for (let r = start; r < end; r++) {
    const p = order[r]
    const o = r - start
    if (status[p] !== OK) continue
    if (store.reserve(SLOTS)) lastRs.fill(-1)
    // the slots: per unit in time (one, or two blended), the stencil's corners (the same corners
    // in the same order as the plan registered them: a corner without weight is never read)
    const before = unitBefore[r]
    const after = unitAfter[r]
    const tw = timeWeight[r]
    const sides = before === after ? 1 : 2
    if (!nearest) stencilAt(grid, gridX[r], gridY[r], stencil)
    bases.fill(-1)
    for (let side = 0; side < sides; side++) {
      const wt = sides === 1 ? 1 : side === 0 ? 1 - tw : tw
      const k = side * 4
      if (nearest) {
        weights[k] = wt
        slotI[k] = gridX[r]
        slotJ[k] = gridY[r]
        for (let c = 1; c < 4; c++) weights[k + c] = 0
      } else {
        weights[k] = stencil.w00 * wt
        weights[k + 1] = stencil.w10 * wt
        weights[k + 2] = stencil.w01 * wt
        weights[k + 3] = stencil.w11 * wt
        slotI[k] = stencil.i0; slotJ[k] = stencil.j0
        slotI[k + 1] = stencil.i1; slotJ[k + 1] = stencil.j0
        slotI[k + 2] = stencil.i0; slotJ[k + 2] = stencil.j1
        slotI[k + 3] = stencil.i1; slotJ[k + 3] = stencil.j1
      }
    }
    // the columns, and the model terrain blended with the same weights
    let modelGround = 0
    let used = 0
    for (let k = 0; k < sides * 4; k++) {
      const w = weights[k]
      if (w === 0) continue
      const rs = k < 4 ? before : after
      const i = slotI[k]
      const j = slotJ[k]
      let b: number
      if (rs === lastRs[k] && i === lastI[k] && j === lastJ[k]) {
        b = lastBase[k]
      } else {
        const piece = pieceAt(pieceCells, rs, i, j)
        const failed = piece < 0 ? OUTSIDE_SOURCE : pieceStatus[piece]
        b = failed !== OK
          ? FAILED - failed
          : store.record(pieces[piece] as SamplePiece, i - shiftI[piece], j - shiftJ[piece])
        data = store.data
        lastRs[k] = rs
        lastI[k] = i
        lastJ[k] = j
        lastBase[k] = b
      }
      if (b < 0) { status[p] = b === NOT_HELD ? OUTSIDE_SOURCE : FAILED - b; continue points }
      const g = data[b + REC_GROUND]
      if (data[b + REC_COUNT] === 0 || !Number.isFinite(g)) { status[p] = UNUSABLE; continue points }
      bases[k] = b
      modelGround += w * g
      used++
    }
    if (used === 0) { status[p] = OUTSIDE_SOURCE; continue }
    const supplied = ground[r]
    const groundMsl = Number.isNaN(supplied) ? modelGround : supplied
    const a = altitude[r]
    const z = agl ? a + groundMsl : a
    let u = 0
    let v = 0
    let t = 0
    let q = 0
    let lnp = 0
    let pOwn = NaN
    // neighbouring columns put the height between the same levels, mostly: the first search
    // is binary, the others walk from its answer
    let hint = -1
    for (let k = 0; k < SLOTS; k++) {
      const b = bases[k]
      if (b < 0) continue
      const w = weights[k]
      const count = data[b + REC_COUNT]
      const zs = b + REC_Z
      const bottom = data[zs]
      const top = data[zs + count - 1]
      // nearest compares as the profile route does, in the request's own reference
      const inside = nearest
        ? (agl ? a >= bottom - groundMsl && a <= top - groundMsl : a >= bottom && a <= top)
        : z >= bottom && z <= top
      if (!inside) {
        if (!clamp) { status[p] = OUTSIDE_VERTICAL; continue points }
        clamped[p] = 1
      }
      const h = inside ? z : (z < bottom ? bottom : top)
      // i: the lower level of the pair around h (zs[i] ≤ h < zs[i + 1]); 0 below, count − 1 at or above the top
      let i: number
      if (hint < 0) {
        let lo = 0
        let hi = count - 1
        if (!(h >= bottom)) {
          i = 0
        } else if (h >= top) {
          i = hi
        } else {
          while (hi - lo > 1) {
            const mid = (lo + hi) >>> 1
            if (data[zs + mid] <= h) lo = mid
            else hi = mid
          }
          i = lo
        }
      } else {
        i = hint < count ? hint : count - 1
        while (i < count - 1 && h >= data[zs + i + 1]) i++
        while (i > 0 && h < data[zs + i]) i--
      }
      hint = i
      const lower = data[zs + i]
      const at = b + V + i * REC_VALUES
      if (h === lower || i === count - 1 || !(h > lower)) {
        // a height on a level (or at an end): that level's own values, its own pressure
        u += w * data[at + V_U]
        v += w * data[at + V_V]
        t += w * data[at + V_T]
        q += w * data[at + V_Q]
        lnp += w * data[at + V_LNP]
        if (used === 1 && w === 1) pOwn = data[at + V_P]
      } else {
        // u, v, T, q and ln p linear in height (docs/DESIGN.md §4)
        const f = (h - lower) / (data[zs + i + 1] - lower)
        const up = at + REC_VALUES
        u += w * (data[at + V_U] + f * (data[up + V_U] - data[at + V_U]))
        v += w * (data[at + V_V] + f * (data[up + V_V] - data[at + V_V]))
        t += w * (data[at + V_T] + f * (data[up + V_T] - data[at + V_T]))
        q += w * (data[at + V_Q] + f * (data[up + V_Q] - data[at + V_Q]))
        lnp += w * (data[at + V_LNP] + f * (data[up + V_LNP] - data[at + V_LNP]))
      }
    }
    // one column of weight 1 keeps its own pressure (a height on a level: that level's p)
    const pressure = Number.isNaN(pOwn) ? Math.exp(lnp) : pOwn
    rows[o] = u
    rows[width + o] = v
    rows[2 * width + o] = windSpeed(u, v)
    rows[3 * width + o] = windDirectionFrom(u, v)
    rows[4 * width + o] = t
    rows[5 * width + o] = pressure
    rows[6 * width + o] = q
    rows[7 * width + o] = relativeHumidityLiquid(q, pressure, t)
    rows[8 * width + o] = moistAirDensity(pressure, t, q)
    rows[OUT_ALTITUDE_MSL * width + o] = z
    rows[OUT_GROUND * width + o] = groundMsl
  }
  // a point not ok has NaN in every column: its rows first, so the copy below reads no status
  for (let r = start; r < end; r++) {
    if (status[order[r]] === OK) continue
    for (let c = 0; c < OUT_COLUMNS; c++) rows[c * width + r - start] = NaN
  }
  // back to point order a column at a time: each column's writes stay within a few hundred KB;
  // every point of the slice is written, so `out` needs no filling first
  for (let c = 0; c < OUT_COLUMNS; c++) {
    const from = c * width - start
    const to = c * n
    for (let r = start; r < end; r++) out[to + order[r]] = rows[from + r]
  }
}
