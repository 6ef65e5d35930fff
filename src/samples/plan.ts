// Planning a bulk samples request before any fetch (docs/DESIGN.md §6): each point's units in
// time, its grid coordinates, the decoded pieces its columns lie in — so the distinct source
// units, and what they would cost, are known from the catalog alone — and the order the kernel
// computes the points in.
import { nearestColumnRow, type LatLonGrid } from '../grib/index.js'
import { BLOCK, createStencil, gridX, gridY, stencilAt, type Stencil } from '../field/index.js'
import { HOUR_MS, type FetchUnit, type HeldRunStep } from '../source/index.js'
import { OK, OUTSIDE_SOURCE, type PieceCells, type PositionInputs } from './kernel.js'
import { sortByKey } from './order.js'
import { SHARED_ARRAYS, type Arrays, type SampleOptions, type SamplePoints } from './points.js'
import { timeIndexFor, type ChoiceSlot } from './time-plan.js'

/** A decoded piece to load: the unit and a grid point it holds (which picks the block of a file). */
export interface PlannedPiece {
  unit: FetchUnit
  point: { i: number, j: number }
  /** Index of its (run, step) in `Plan.runSteps`. */
  runStep: number
}

export interface Plan {
  n: number
  grid: LatLonGrid
  /** Every (run, step) a point's time choice names, sorted by run then step (the response's `units`). */
  runSteps: HeldRunStep[]
  pieces: PlannedPiece[]
  pieceCells: PieceCells
  /** Distinct source unit keys (what the allowance and ALOFT_SAMPLES_MAX_UNITS count). */
  unitKeys: string[]
  /** Per point: the status planning found (ok, or outside_source), and its units in time (−1: none). */
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
export interface PlanSource {
  sourceGrid (): Promise<LatLonGrid>
  entriesNear (hours: Iterable<number>): Promise<HeldRunStep[]>
  unitAt (rs: HeldRunStep, i: number, j: number): FetchUnit
  readonly maxTimeOffsetMs: number
}

/**
 * `sliceSize`: the points of one compute slice (the processing order is a permutation within
 * each slice, so slices stay independent: the Arrow answer streams them in point order).
 */
export async function planSamples (
  points: SamplePoints, options: SampleOptions, source: PlanSource, sliceSize: number, arrays: Arrays = SHARED_ARRAYS
): Promise<Plan> {
  const { n, latitude, longitude, time } = points
  const grid = await source.sourceGrid()

  // time: one choice per distinct instant, from the catalog entries of the hours they fall in
  const { instants, pointInstant } = distinctInstants(time, n)
  const index = timeIndexFor(await source.entriesNear(hoursOf(instants)), options.run, source.maxTimeOffsetMs)
  const nearest = options.interpolation === 'nearest'
  // per instant: the two entries' ordinals (−1: none) and the weight, written in place
  const count = instants.length
  const instantBefore = new Int32Array(count)
  const instantAfter = new Int32Array(count)
  const instantWeight = new Float64Array(count)
  const named = new Uint8Array(index.entries.length)
  const slot: ChoiceSlot = { before: -1, after: -1, weight: 0 }
  for (let k = 0; k < count; k++) {
    const t = instants[k]
    if (nearest ? index.nearestInto(t, slot) : index.linearInto(t, slot)) {
      instantBefore[k] = slot.before
      instantAfter[k] = slot.after
      instantWeight[k] = slot.weight
      named[slot.before] = named[slot.after] = 1
    } else {
      instantBefore[k] = instantAfter[k] = -1
      instantWeight[k] = NaN
    }
  }
  // the (run, step)s named, in the response's order; then the instants' ordinals as their indices
  const ordinals: number[] = []
  named.forEach((used, e) => { if (used === 1) ordinals.push(e) })
  const { entries } = index
  ordinals.sort((a, b) => entries[a].run - entries[b].run || entries[a].step - entries[b].step)
  const runSteps = ordinals.map((e) => entries[e])
  const rsOf = new Int32Array(entries.length)
  ordinals.forEach((e, k) => { rsOf[e] = k })
  for (let k = 0; k < count; k++) {
    if (instantBefore[k] < 0) continue
    instantBefore[k] = rsOf[instantBefore[k]]
    instantAfter[k] = rsOf[instantAfter[k]]
  }

  const status = arrays.uint8(n)
  const unitBefore = arrays.int32(n)
  const unitAfter = arrays.int32(n)
  const timeWeight = arrays.float64(n)
  const gx = new Float64Array(n)
  const gy = new Float64Array(n)
  const order = arrays.int32(n)

  // per point: its units, grid coordinates and a key naming the columns it reads first (unit
  // before, row, column); then per slice the points sorted by it, so consecutive points read the
  // same few columns while they are in the processor's cache
  const stencil = createStencil()
  const cellCount = grid.ni * grid.nj
  const byUnit = runSteps.length * cellCount < 2 ** 32
  const keys = new Uint32Array(n)
  for (let p = 0; p < n; p++) {
    const k = pointInstant[p]
    const before = instantBefore[k]
    unitBefore[p] = before
    unitAfter[p] = instantAfter[k]
    timeWeight[p] = instantWeight[k]
    if (before < 0) {
      status[p] = OUTSIDE_SOURCE
      continue
    }
    let cell: number
    if (nearest) {
      cell = nearestColumnRow(grid, latitude[p], longitude[p])
      if (cell < 0) { status[p] = OUTSIDE_SOURCE; continue }
      gy[p] = Math.floor(cell / grid.ni)
      gx[p] = cell - gy[p] * grid.ni
    } else {
      gx[p] = gridX(grid, longitude[p])
      gy[p] = gridY(grid, latitude[p])
      if (!stencilAt(grid, gx[p], gy[p], stencil)) { status[p] = OUTSIDE_SOURCE; continue }
      cell = stencil.j0 * grid.ni + stencil.i0
    }
    keys[p] = byUnit ? before * cellCount + cell : cell
  }
  for (let s = 0; s < n; s += sliceSize) sortByKey(keys, s, Math.min(n, s + sliceSize), order)

  const plan: Plan = {
    n, grid, runSteps, pieces: [], unitKeys: [], pieceCells: emptyCells(0, arrays),
    status, unitBefore, unitAfter, timeWeight, order, sliceSize, arrays,
    at: { x: arrays.float64(n), y: arrays.float64(n), before: arrays.int32(n), after: arrays.int32(n),
      weight: arrays.float64(n), altitude: arrays.float64(n), ground: arrays.float64(n) }
  }
  const { at } = plan
  // the pieces the points' weighted columns lie in, in processing order (so the last cell met
  // mostly answers the next lookup)
  const cells = new PieceTables(plan, source)
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
    if (!nearest) stencilAt(grid, x, y, stencil)
    // sorted points mostly repeat the last point's corners: registering them again changes nothing
    const i0 = nearest ? x : stencil.i0
    const j0 = nearest ? y : stencil.j0
    const i1 = nearest ? x : stencil.i1
    const j1 = nearest ? y : stencil.j1
    if (before === lastBefore && after === lastAfter && i0 === lastI0 && j0 === lastJ0 && i1 === lastI1 &&
      j1 === lastJ1) continue
    lastBefore = before
    lastAfter = after
    lastI0 = i0
    lastJ0 = j0
    lastI1 = i1
    lastJ1 = j1
    const sides = before === after ? 1 : 2
    for (let side = 0; side < sides; side++) {
      const rs = side === 0 ? before : after
      if (nearest) cells.piece(side, rs, x, y)
      else cells.stencil(side, rs, stencil)
    }
  }
  plan.pieceCells = cells.cells()
  return plan
}

function emptyCells (runSteps: number, arrays: Arrays): PieceCells {
  return { size: arrays.int32(runSteps), columns: arrays.int32(runSteps), offset: arrays.int32(runSteps),
    cells: arrays.int32(0) }
}

/** Builds the plan's pieces and their cell tables. */
class PieceTables {
  readonly #plan: Plan
  readonly #source: PlanSource
  readonly #size: Int32Array
  readonly #columns: Int32Array
  readonly #tables: Array<Int32Array | undefined>
  readonly #keys = new Set<string>()
  // the last cell met per side (before, after) and its piece: consecutive lookups mostly hit it
  readonly #lastRs = new Int32Array([-1, -1])
  readonly #lastI0 = new Int32Array(2)
  readonly #lastJ0 = new Int32Array(2)

  constructor (plan: Plan, source: PlanSource) {
    this.#plan = plan
    this.#source = source
    const count = plan.runSteps.length
    this.#size = new Int32Array(count)
    this.#columns = new Int32Array(count)
    this.#tables = new Array(count)
  }

  /** Registers the pieces of a stencil's weighted corners (a corner without weight is never read). */
  stencil (side: number, rs: number, s: Stencil): void {
    if (s.w00 !== 0) this.piece(side, rs, s.i0, s.j0)
    if (s.w10 !== 0) this.piece(side, rs, s.i1, s.j0)
    if (s.w01 !== 0) this.piece(side, rs, s.i0, s.j1)
    if (s.w11 !== 0) this.piece(side, rs, s.i1, s.j1)
  }

  piece (side: number, rs: number, i: number, j: number): void {
    const size = this.#size[rs]
    if (rs === this.#lastRs[side] && i >= this.#lastI0[side] && i < this.#lastI0[side] + size &&
      j >= this.#lastJ0[side] && j < this.#lastJ0[side] + size) return
    const plan = this.#plan
    const table = this.#tables[rs]
    if (table === undefined) {
      // the (run, step)'s first point: its cells are its unit's tiles, or decoded blocks of a file
      const size = this.#source.unitAt(plan.runSteps[rs], i, j).tile?.size ?? BLOCK
      this.#size[rs] = size
      this.#columns[rs] = Math.ceil(plan.grid.ni / size)
      this.#tables[rs] = new Int32Array(this.#columns[rs] * Math.ceil(plan.grid.nj / size)).fill(-1)
      this.piece(side, rs, i, j)
      return
    }
    const ci = Math.floor(i / size)
    const cj = Math.floor(j / size)
    const cell = cj * this.#columns[rs] + ci
    if (table[cell] < 0) {
      const unit = this.#source.unitAt(plan.runSteps[rs], i, j)
      table[cell] = plan.pieces.length
      plan.pieces.push({ unit, point: { i, j }, runStep: rs })
      this.#keys.add(unit.key)
    }
    this.#lastRs[side] = rs
    this.#lastI0[side] = ci * size
    this.#lastJ0[side] = cj * size
  }

  /** The tables, in the plan's arrays (shared memory for pool workers); sets the plan's unit keys. */
  cells (): PieceCells {
    const count = this.#tables.length
    const c = emptyCells(count, this.#plan.arrays)
    let length = 0
    for (let rs = 0; rs < count; rs++) {
      c.size[rs] = this.#size[rs]
      c.columns[rs] = this.#columns[rs]
      c.offset[rs] = length
      length += this.#tables[rs]?.length ?? 0
    }
    c.cells = this.#plan.arrays.int32(length)
    this.#tables.forEach((t, rs) => { if (t !== undefined) c.cells.set(t, c.offset[rs]) })
    this.#plan.unitKeys = [...this.#keys]
    return c
  }
}

/**
 * The whole hours the instants fall in, each once: counted in hours (small integers, which a Set
 * hashes several times faster than the epoch milliseconds) and skipping a repeat of the last.
 */
function hoursOf (instants: Float64Array): number[] {
  const hours = new Set<number>()
  let last = NaN
  for (let k = 0; k < instants.length; k++) {
    const h = Math.floor(instants[k] / HOUR_MS)
    if (h === last) continue
    hours.add(h)
    last = h
  }
  return Array.from(hours, (h) => h * HOUR_MS)
}

/**
 * The distinct instants of `time` and each point's index into them, by open addressing over the
 * float64 bits in typed arrays (a Map of 100 000 numbers costs several times more).
 */
function distinctInstants (time: Float64Array, n: number): { instants: Float64Array, pointInstant: Int32Array } {
  let size = 8
  while (size < 2 * n) size *= 2
  const mask = size - 1
  const table = new Int32Array(size).fill(-1)
  const seen = new Float64Array(n)
  const pointInstant = new Int32Array(n)
  const bits = new Float64Array(1)
  const words = new Int32Array(bits.buffer)
  let count = 0
  for (let p = 0; p < n; p++) {
    const t = time[p]
    bits[0] = t
    let h = (Math.imul(words[0], 0x9e3779b1) ^ Math.imul(words[1], 0x85ebca77)) >>> 0
    h = (h ^ (h >>> 15)) & mask
    for (;;) {
      const k = table[h]
      if (k < 0) {
        table[h] = count
        seen[count] = t
        pointInstant[p] = count++
        break
      }
      if (seen[k] === t) {
        pointInstant[p] = k
        break
      }
      h = (h + 1) & mask
    }
  }
  return { instants: seen.subarray(0, count), pointInstant }
}
