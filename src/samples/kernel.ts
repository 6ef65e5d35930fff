// The samples kernel (docs/DESIGN.md §6): for a slice of planned points, read each weighted
// column out of this thread's packed column store (filled from the decoded tiles on first use),
// interpolate it at the point's height and blend. Allocation-free per point (mapbox/pbf style:
// plain loops over typed arrays, per-point state in module-level typed arrays and scalars), so
// the same function runs on the main thread or on a pool worker over the same shared arrays.
// Per point the functions below take no float arguments: one V8 does not inline would otherwise
// box each float it is passed.
import {
  findLevel, lerp, levelFraction, moistAirDensity, onLevel, powerLawShare, relativeHumidityLiquid, windDirectionFrom,
  windSpeed
} from '../atmosphere/index.js'
import { createStencil, stencilAt } from '../field/index.js'
import { nearestSlots, pieceAt, stencilSlots } from './cells.js'
import {
  ColumnStore, REC_COUNT, REC_GROUND, REC_POWER_LAW_BELOW, REC_U10, REC_V10, REC_VALUES, REC_Z, V_LNP, V_P, V_Q, V_T,
  V_U, V_V, type SamplePiece
} from './column-store.js'
import type { SampleTask } from './kernel-task.js'
import { OK, OUT_ALTITUDE_MSL, OUT_COLUMNS, OUT_GROUND, OUTSIDE_SOURCE, OUTSIDE_VERTICAL, UNUSABLE } from './result.js'

/** Column slots per point: two units in time × four bilinear corners. */
export const SLOTS = 8

const store = new ColumnStore()
/**
 * Per slot (side × 4 + corner, in the order the blend sums them): the last column looked up there,
 * as (run, step), column, row and what it gave (consecutive points mostly share their columns).
 */
const lastRs = new Int32Array(SLOTS)
const lastI = new Int32Array(SLOTS)
const lastJ = new Int32Array(SLOTS)
const lastBase = new Int32Array(SLOTS)
/** The current point's slots: record offset (−1: none), weight (space × time), grid column and row. */
const bases = new Int32Array(SLOTS)
const weights = new Float64Array(SLOTS)
const slotI = new Int32Array(SLOTS)
const slotJ = new Int32Array(SLOTS)
const stencil = createStencil()
/** The current point's weighted columns, and its model terrain blended with their weights (set by findColumns). */
let used = 0
const modelGround = new Float64Array(1)

/** lastBase codes besides a record offset: the piece does not hold the point, or failed (−2 − status). */
const NOT_HELD = -1
const FAILED = -2
/** This thread's output rows in processing order, scattered to `out` a column at a time. */
let rows = new Float64Array(0)

export function computeSamples (task: SampleTask): void {
  const { grid, start, end, order, nearest, status } = task
  const { x, y, before, after, weight } = task.at
  store.prepare(task.pieces, task.surfaceLayer)
  lastRs.fill(-1)
  const width = end - start
  if (rows.length < width * OUT_COLUMNS) rows = new Float64Array(width * OUT_COLUMNS)
  for (let r = start; r < end; r++) {
    const p = order[r]
    if (status[p] !== OK) continue
    if (store.reserve(SLOTS)) lastRs.fill(-1)
    // the slots: per unit in time (one, or two blended), the stencil's corners (the same corners
    // in the same order as the plan registered them: a corner without weight is never read)
    const sides = before[r] === after[r] ? 1 : 2
    const tw = weight[r]
    if (!nearest) stencilAt(grid, x[r], y[r], stencil)
    for (let side = 0; side < sides; side++) {
      const wt = sides === 1 ? 1 : side === 0 ? 1 - tw : tw
      if (nearest) nearestSlots(x[r], y[r], wt, side * 4, slotI, slotJ, weights)
      else stencilSlots(stencil, wt, side * 4, slotI, slotJ, weights)
    }
    const found = findColumns(task, before[r], after[r], sides)
    const blended = found === OK ? blendColumns(task, r, p, r - start, width) : found
    if (blended !== OK) status[p] = blended
  }
  scatterRows(task, width)
}

/**
 * The record of each weighted slot's column into `bases`, their count into `used` and the model
 * terrain blended with their weights into `modelGround`; the point's status (OK when every
 * column is usable).
 */
function findColumns (task: SampleTask, before: number, after: number, sides: number): number {
  bases.fill(-1)
  let ground = 0
  used = 0
  for (let k = 0; k < sides * 4; k++) {
    const w = weights[k]
    if (w === 0) continue
    const rs = k < 4 ? before : after
    const i = slotI[k]
    const j = slotJ[k]
    const b = rs === lastRs[k] && i === lastI[k] && j === lastJ[k] ? lastBase[k] : lookUp(task, k, rs, i, j)
    if (b < 0) return b === NOT_HELD ? OUTSIDE_SOURCE : FAILED - b
    const data = store.data
    const g = data[b + REC_GROUND]
    if (data[b + REC_COUNT] === 0 || !Number.isFinite(g)) return UNUSABLE
    bases[k] = b
    ground += w * g
    used++
  }
  modelGround[0] = ground
  return used === 0 ? OUTSIDE_SOURCE : OK
}

/**
 * Slot k's column, (run, step) rs at grid point (i, j): its record offset, or a lastBase code;
 * kept as the slot's last (looked up only when the slot's column changes).
 */
function lookUp (task: SampleTask, k: number, rs: number, i: number, j: number): number {
  const piece = pieceAt(task.pieceCells, rs, i, j)
  const failed = piece < 0 ? OUTSIDE_SOURCE : task.pieceStatus[piece]
  const b = failed !== OK
    ? FAILED - failed
    : store.record(task.pieces[piece] as SamplePiece, i - task.shiftI[piece], j - task.shiftJ[piece],
      task.surfaceLayer)
  lastRs[k] = rs
  lastI[k] = i
  lastJ[k] = j
  lastBase[k] = b
  return b
}

/**
 * The point at processing position r (point p): its columns (`bases`) interpolated at its height
 * and blended into row `o` of the slice; OUTSIDE_VERTICAL when a column does not reach the height
 * and the request does not clamp. A function of its own, too large for V8 to inline into the
 * loop: it gets an inlining budget of its own, which the atmosphere's level search and derived
 * fields fit in (inlined into the loop with the stencil's code, they did not, and it ran slower).
 */
function blendColumns (task: SampleTask, r: number, p: number, o: number, width: number): number {
  const { agl, clamp, nearest } = task
  const data = store.data
  const V = store.valuesOffset
  const supplied = task.at.ground[r]
  const groundMsl = Number.isNaN(supplied) ? modelGround[0] : supplied
  const a = task.at.altitude[r]
  const z = agl ? a + groundMsl : a
  let u = 0
  let v = 0
  let t = 0
  let q = 0
  let lnp = 0
  let pOwn = NaN
  // neighbouring columns put the height between the same levels, mostly: the first search is
  // binary, the others walk from its answer
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
      if (!clamp) return OUTSIDE_VERTICAL
      task.clamped[p] = 1
    }
    const h = inside ? z : (z < bottom ? bottom : top)
    const i = hint = findLevel(data, count, h, zs, hint)
    const at = b + V + i * REC_VALUES
    const on = onLevel(data, count, i, h, zs)
    // u, v, T, q and ln p linear in height (docs/DESIGN.md §4); a height on a level (or at an
    // end): that level's own values, its own pressure
    const f = on ? 0 : levelFraction(data, i, h, zs)
    const up = at + REC_VALUES
    if (h < data[b + REC_POWER_LAW_BELOW]) {
      // under a surface layer's 10 m wind: the power law (docs/DESIGN.md §8)
      const share = powerLawShare(h - data[b + REC_GROUND])
      u += w * share * data[b + REC_U10]
      v += w * share * data[b + REC_V10]
    } else if (on) {
      u += w * data[at + V_U]
      v += w * data[at + V_V]
    } else {
      u += w * lerp(data[at + V_U], data[up + V_U], f)
      v += w * lerp(data[at + V_V], data[up + V_V], f)
    }
    if (on) {
      t += w * data[at + V_T]
      q += w * data[at + V_Q]
      lnp += w * data[at + V_LNP]
      if (used === 1 && w === 1) pOwn = data[at + V_P]
    } else {
      t += w * lerp(data[at + V_T], data[up + V_T], f)
      q += w * lerp(data[at + V_Q], data[up + V_Q], f)
      lnp += w * lerp(data[at + V_LNP], data[up + V_LNP], f)
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
  return OK
}

/**
 * The slice's rows back to point order, a column at a time (each column's writes stay within a
 * few hundred KB); a point not ok has NaN in every column. Every point of the slice is written,
 * so `out` needs no filling first.
 */
function scatterRows (task: SampleTask, width: number): void {
  const { n, start, end, order, status, out } = task
  // the rows of points not ok first, so the copy below reads no status
  for (let r = start; r < end; r++) {
    if (status[order[r]] === OK) continue
    for (let c = 0; c < OUT_COLUMNS; c++) rows[c * width + r - start] = NaN
  }
  for (let c = 0; c < OUT_COLUMNS; c++) {
    const from = c * width - start
    const to = c * n
    for (let r = start; r < end; r++) out[to + order[r]] = rows[from + r]
  }
}
