// Planning a bulk samples request before any fetch (docs/DESIGN.md §6): each point's units in
// time, its grid coordinates, the decoded pieces its columns lie in — so the distinct source
// units, and what they would cost, are known from the catalog alone — and the order the kernel
// computes the points in.
import { nearestColumnRow, type LatLonGrid } from '../grib/index.js'
import { createStencil, gridX, gridY, stencilAt } from '../field/index.js'
import type { HeldRunStep } from '../source/index.js'
import { SHARED_ARRAYS, type Arrays } from './arrays.js'
import { stencilSlots, type PieceCells } from './cells.js'
import { distinctInstants } from './distinct-instants.js'
import { distinctHoursOf } from './hours.js'
import { positionInputs, type PositionInputs } from './kernel-task.js'
import { sortByKey } from './order.js'
import { PieceTables, type PlannedPiece, type UnitSource } from './piece-tables.js'
import type { SampleOptions, SamplePoints } from './points.js'
import { OK, OUTSIDE_SOURCE } from './result.js'
import { timeIndexFor, type ChoiceSlot, type TimeIndex } from './time-plan.js'

export interface Plan {
  n: number
  grid: LatLonGrid
  /**
   * Every (run, step) the time choice of a point inside the source's coverage names, sorted by run
   * then step (the response's `units`): a point outside reads none and names none.
   */
  runSteps: HeldRunStep[]
  pieces: PlannedPiece[]
  pieceCells: PieceCells
  /** Distinct source unit keys (what the allowance and ALOFT_SAMPLES_MAX_UNITS count). */
  unitKeys: string[]
  /** Per point: the status planning found (ok, or outside_source), and its units in time (−1: none, outside). */
  status: Uint8Array
  unitBefore: Int32Array
  unitAfter: Int32Array
  timeWeight: Float64Array
  /** Per processing position: the point computed there (a permutation within each slice). */
  order: Int32Array
  /**
   * What the kernel reads of each point, gathered in processing order (so its reads stay
   * sequential): grid coordinates (gridX, gridY; for `nearest` the nearest grid point's column and
   * row), units in time and weight, the height and the caller's ground (NaN: the model's).
   */
  at: PositionInputs
  /** Points per compute slice (the last may be shorter). */
  sliceSize: number
  /** Where its arrays (and the computation's) live. */
  arrays: Arrays
}

/** What planning needs of the source. */
export interface PlanSource extends UnitSource {
  sourceGrid (): Promise<LatLonGrid>
  entriesNear (hours: Iterable<number>): Promise<HeldRunStep[]>
  readonly maxTimeOffsetMs: number
}

/** A plan's points placed, before their pieces are known. */
type PlacedPoints = Omit<Plan, 'pieces' | 'pieceCells' | 'unitKeys'>

/** Per distinct instant: its units in time as indices into `runSteps` (−1: none), and the weight of `after`. */
interface InstantTimes {
  runSteps: HeldRunStep[]
  before: Int32Array
  after: Int32Array
  weight: Float64Array
}

/**
 * `sliceSize`: the points of one compute slice (the processing order is a permutation within
 * each slice, so slices stay independent: the Arrow answer streams them in point order).
 */
export async function planSamples (
  points: SamplePoints, options: SampleOptions, source: PlanSource, sliceSize: number, arrays: Arrays = SHARED_ARRAYS
): Promise<Plan> {
  const { n } = points
  const grid = await source.sourceGrid()
  // time: one choice per distinct instant, from the catalog entries of the hours they fall in
  const { instants, pointInstant } = distinctInstants(points.time, n)
  const index = timeIndexFor(await source.entriesNear(distinctHoursOf(instants)), options.run, source.maxTimeOffsetMs)
  const nearest = options.interpolation === 'nearest'
  const times = chooseTimes(index, instants, nearest)
  const placed: PlacedPoints = {
    n, grid, runSteps: times.runSteps, status: arrays.uint8(n), unitBefore: arrays.int32(n),
    unitAfter: arrays.int32(n), timeWeight: arrays.float64(n), order: arrays.int32(n), at: positionInputs(arrays, n),
    sliceSize, arrays
  }
  // per point a key naming the columns it reads first; then per slice the points sorted by it, so
  // consecutive points read the same few columns while they are in the processor's cache
  const gx = new Float64Array(n)
  const gy = new Float64Array(n)
  const keys = placePoints(placed, points, pointInstant, times, nearest, gx, gy)
  keepNamedRunSteps(placed)
  for (let s = 0; s < n; s += sliceSize) sortByKey(keys, s, Math.min(n, s + sliceSize), placed.order)
  const tables = gatherPoints(placed, points, gx, gy, source)
  return { ...placed, pieces: tables.pieces, pieceCells: tables.cells(arrays), unitKeys: tables.unitKeys() }
}

/**
 * Each instant's units in time by the request's rule; then the (run, step)s they name, in the
 * response's order, and the instants' entries as indices into them.
 */
function chooseTimes (index: TimeIndex, instants: Float64Array, nearest: boolean): InstantTimes {
  const count = instants.length
  const before = new Int32Array(count)
  const after = new Int32Array(count)
  const weight = new Float64Array(count)
  // the two entries' ordinals and the weight, written in place
  const named = new Uint8Array(index.entries.length)
  const slot: ChoiceSlot = { before: -1, after: -1, weight: 0 }
  for (let k = 0; k < count; k++) {
    const t = instants[k]
    if (nearest ? index.nearestInto(t, slot) : index.linearInto(t, slot)) {
      before[k] = slot.before
      after[k] = slot.after
      weight[k] = slot.weight
      named[slot.before] = named[slot.after] = 1
    } else {
      before[k] = after[k] = -1
      weight[k] = NaN
    }
  }
  const ordinals: number[] = []
  named.forEach((used, e) => { if (used === 1) ordinals.push(e) })
  const { entries } = index
  ordinals.sort((a, b) => entries[a].run - entries[b].run || entries[a].step - entries[b].step)
  const rsOf = new Int32Array(entries.length)
  ordinals.forEach((e, k) => { rsOf[e] = k })
  for (let k = 0; k < count; k++) {
    if (before[k] < 0) continue
    before[k] = rsOf[before[k]]
    after[k] = rsOf[after[k]]
  }
  return { runSteps: ordinals.map((e) => entries[e]), before, after, weight }
}

/**
 * Each point's units in time and grid coordinates into `gx`, `gy`, or its status outside_source;
 * per point, a key naming the columns it reads first (unit before, row, column).
 */
function placePoints (
  plan: PlacedPoints, points: SamplePoints, pointInstant: Int32Array, times: InstantTimes, nearest: boolean,
  gx: Float64Array, gy: Float64Array
): Uint32Array {
  const { n, grid, status, unitBefore, unitAfter, timeWeight } = plan
  const { latitude, longitude } = points
  const stencil = createStencil()
  const cellCount = grid.ni * grid.nj
  const byUnit = times.runSteps.length * cellCount < 2 ** 32
  const keys = new Uint32Array(n)
  for (let p = 0; p < n; p++) {
    const k = pointInstant[p]
    const before = times.before[k]
    unitBefore[p] = before
    unitAfter[p] = times.after[k]
    timeWeight[p] = times.weight[k]
    if (before < 0) {
      status[p] = OUTSIDE_SOURCE
      continue
    }
    let cell: number
    if (nearest) {
      cell = nearestColumnRow(grid, latitude[p], longitude[p])
      if (cell < 0) { outsidePlace(plan, p); continue }
      gy[p] = Math.floor(cell / grid.ni)
      gx[p] = cell - gy[p] * grid.ni
    } else {
      gx[p] = gridX(grid, longitude[p])
      gy[p] = gridY(grid, latitude[p])
      if (!stencilAt(grid, gx[p], gy[p], stencil)) { outsidePlace(plan, p); continue }
      cell = stencil.j0 * grid.ni + stencil.i0
    }
    keys[p] = byUnit ? before * cellCount + cell : cell
  }
  return keys
}

/** A point whose place the source does not cover: it reads no unit, so it names none (nor a weight). */
function outsidePlace (plan: PlacedPoints, p: number): void {
  plan.status[p] = OUTSIDE_SOURCE
  plan.unitBefore[p] = plan.unitAfter[p] = -1
  plan.timeWeight[p] = NaN
}

/**
 * Only the (run, step)s a point inside the coverage names, renumbered in their order (which keeps
 * the points' sort keys in order): a point outside in place no longer lists a unit nothing read.
 */
function keepNamedRunSteps (plan: PlacedPoints): void {
  const { n, status, unitBefore, unitAfter } = plan
  const count = plan.runSteps.length
  const renumber = new Int32Array(count).fill(-1)
  for (let p = 0; p < n; p++) {
    if (status[p] !== OUTSIDE_SOURCE) renumber[unitBefore[p]] = renumber[unitAfter[p]] = 0
  }
  let kept = 0
  for (let k = 0; k < count; k++) if (renumber[k] === 0) renumber[k] = kept++
  if (kept === count) return
  plan.runSteps = plan.runSteps.filter((_, k) => renumber[k] >= 0)
  for (let p = 0; p < n; p++) {
    if (unitBefore[p] < 0) continue
    unitBefore[p] = renumber[unitBefore[p]]
    unitAfter[p] = renumber[unitAfter[p]]
  }
}

/**
 * What the kernel reads of each point, gathered in processing order; and the pieces the points'
 * weighted columns lie in, registered in the same order (so the last cell met mostly answers the
 * next lookup).
 */
function gatherPoints (
  plan: PlacedPoints, points: SamplePoints, gx: Float64Array, gy: Float64Array, source: UnitSource
): PieceTables {
  const { n, grid, order, status, unitBefore, unitAfter, timeWeight, at } = plan
  const tables = new PieceTables(grid, plan.runSteps, source)
  const stencil = createStencil()
  const cornerI = new Int32Array(4)
  const cornerJ = new Int32Array(4)
  const cornerW = new Float64Array(4)
  let lastBefore = -1
  let lastAfter = -1
  let lastI0 = -1
  let lastJ0 = -1
  let lastI1 = -1
  let lastJ1 = -1
  for (let r = 0; r < n; r++) {
    const p = order[r]
    if (status[p] !== OK) continue
    const x = at.x[r] = gx[p]
    const y = at.y[r] = gy[p]
    const before = at.before[r] = unitBefore[p]
    const after = at.after[r] = unitAfter[p]
    at.weight[r] = timeWeight[p]
    at.altitude[r] = points.altitude[p]
    at.ground[r] = points.ground[p]
    // for `nearest` (x, y) is a grid point: its stencil is that point alone, with all the weight
    stencilAt(grid, x, y, stencil)
    const { i0, j0, i1, j1 } = stencil
    // sorted points mostly repeat the last point's corners: registering them again changes nothing
    if (before === lastBefore && after === lastAfter && i0 === lastI0 && j0 === lastJ0 && i1 === lastI1 &&
      j1 === lastJ1) continue
    lastBefore = before
    lastAfter = after
    lastI0 = i0
    lastJ0 = j0
    lastI1 = i1
    lastJ1 = j1
    stencilSlots(stencil, 1, 0, cornerI, cornerJ, cornerW)
    for (let side = 0; side < (before === after ? 1 : 2); side++) {
      const rs = side === 0 ? before : after
      for (let c = 0; c < 4; c++) if (cornerW[c] !== 0) tables.piece(side, rs, cornerI[c], cornerJ[c])
    }
  }
  return tables
}
