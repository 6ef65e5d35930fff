// Planning a bulk samples request before any fetch (docs/DESIGN.md §6): each point's units in
// time, its bilinear (or nearest) grid points, and the decoded pieces they lie in — so the distinct
// source units, and what they would cost, are known from the catalog alone.
import { gridPointIndex, type LatLonGrid } from '../grib/index.js'
import { BLOCK, bilinearStencil, createStencil } from '../field/index.js'
import { HOUR_MS, type FetchUnit, type HeldRunStep } from '../source/index.js'
import { OUTSIDE_SOURCE, SLOTS } from './kernel.js'
import { sharedFloat64, sharedInt32, sharedUint8, type SampleOptions, type SamplePoints } from './points.js'
import { TimeIndex } from './time-plan.js'

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
  /** Distinct source unit keys (what the allowance and ALOFT_SAMPLES_MAX_UNITS count). */
  unitKeys: string[]
  status: Uint8Array
  unitBefore: Int32Array
  unitAfter: Int32Array
  timeWeight: Float64Array
  slotPiece: Int32Array
  slotI: Int32Array
  slotJ: Int32Array
  slotW: Float64Array
}

/** What planning needs of the source. */
export interface PlanSource {
  sourceGrid (): Promise<LatLonGrid>
  entriesNear (hours: Iterable<number>): Promise<HeldRunStep[]>
  unitAt (rs: HeldRunStep, i: number, j: number): FetchUnit
  readonly maxTimeOffsetMs: number
}

export async function planSamples (points: SamplePoints, options: SampleOptions, source: PlanSource): Promise<Plan> {
  const { n, latitude, longitude, time } = points
  const grid = await source.sourceGrid()

  // time: one choice per distinct instant, from the catalog entries of the hours they fall in;
  // each point gets the index of its instant (keyed relative to the first: small integers hash fast)
  const t0 = n > 0 ? time[0] : 0
  const instantOf = new Map<number, number>()
  const instants: number[] = []
  const pointInstant = new Int32Array(n)
  for (let p = 0; p < n; p++) {
    const dt = time[p] - t0
    let k = instantOf.get(dt)
    if (k === undefined) {
      k = instants.length
      instants.push(dt + t0)
      instantOf.set(dt, k)
    }
    pointInstant[p] = k
  }
  const hours = new Set(instants.map((t) => Math.floor(t / HOUR_MS) * HOUR_MS))
  const index = new TimeIndex(await source.entriesNear(hours), source.maxTimeOffsetMs)
  const nearest = options.interpolation === 'nearest'
  const choices = instants.map((t) => nearest ? index.nearest(t) : index.linear(t))

  // the (run, step)s named, in the response's order (TimeIndex hands out one object per entry)
  const named = new Set<HeldRunStep>()
  for (const c of choices) {
    if (c === null) continue
    named.add(c.before)
    named.add(c.after)
  }
  const runSteps = [...named].sort((a, b) => a.run - b.run || a.step - b.step)
  const rsIndex = new Map(runSteps.map((rs, k) => [rs, k]))
  // per instant: the two (run, step) indices (−1: none) and the weight
  const instantBefore = new Int32Array(choices.length)
  const instantAfter = new Int32Array(choices.length)
  const instantWeight = new Float64Array(choices.length)
  choices.forEach((c, k) => {
    instantBefore[k] = c === null ? -1 : rsIndex.get(c.before) as number
    instantAfter[k] = c === null ? -1 : rsIndex.get(c.after) as number
    instantWeight[k] = c === null ? NaN : c.weight
  })

  const plan: Plan = {
    n, grid, runSteps, pieces: [], unitKeys: [],
    status: sharedUint8(n),
    unitBefore: sharedInt32(n),
    unitAfter: sharedInt32(n),
    timeWeight: sharedFloat64(n),
    slotPiece: sharedInt32(n * SLOTS).fill(-1),
    slotI: sharedInt32(n * SLOTS),
    slotJ: sharedInt32(n * SLOTS),
    slotW: sharedFloat64(n * SLOTS)
  }

  // pieces: grid points fall in square cells (a filter tile, or a decoded block of a file); per
  // (run, step) a dense table from cell to piece, made when the (run, step) is first met
  const cellSize = new Int32Array(runSteps.length)
  const cellColumns = new Int32Array(runSteps.length)
  const cellTables: Array<Int32Array | undefined> = new Array(runSteps.length)
  const keys = new Set<string>()
  let lastRs = -1
  let lastCell = -1
  let lastPiece = -1
  const pieceOf = (rs: number, i: number, j: number): number => {
    let table = cellTables[rs]
    if (table === undefined) {
      const size = source.unitAt(runSteps[rs], i, j).tile?.size ?? BLOCK
      cellSize[rs] = size
      cellColumns[rs] = Math.ceil(grid.ni / size)
      table = cellTables[rs] = new Int32Array(cellColumns[rs] * Math.ceil(grid.nj / size)).fill(-1)
    }
    const size = cellSize[rs]
    const cell = Math.floor(j / size) * cellColumns[rs] + Math.floor(i / size)
    if (cell === lastCell && rs === lastRs) return lastPiece
    let piece = table[cell]
    if (piece < 0) {
      const unit = source.unitAt(runSteps[rs], i, j)
      piece = plan.pieces.length
      plan.pieces.push({ unit, point: { i, j }, runStep: rs })
      keys.add(unit.key)
      table[cell] = piece
    }
    lastRs = rs
    lastCell = cell
    lastPiece = piece
    return piece
  }

  const stencil = createStencil()
  const { status, slotPiece, slotI, slotJ, slotW } = plan
  let slot = 0
  const put = (rs: number, i: number, j: number, w: number): void => {
    if (w === 0) return // a column without weight is never read
    slotPiece[slot] = pieceOf(rs, i, j)
    slotI[slot] = i
    slotJ[slot] = j
    slotW[slot] = w
    slot++
  }
  for (let p = 0; p < n; p++) {
    const k = pointInstant[p]
    const before = instantBefore[k]
    const after = instantAfter[k]
    const weight = instantWeight[k]
    plan.unitBefore[p] = before
    plan.unitAfter[p] = after
    plan.timeWeight[p] = weight
    if (before < 0) {
      status[p] = OUTSIDE_SOURCE
      continue
    }
    slot = p * SLOTS
    // every unit shares the source's grid, so one stencil serves both times
    const gp = nearest ? gridPointIndex(grid, latitude[p], longitude[p]) : null
    if (nearest ? gp === null : !bilinearStencil(grid, latitude[p], longitude[p], stencil)) {
      status[p] = OUTSIDE_SOURCE
      continue
    }
    const sides = before === after ? 1 : 2
    for (let side = 0; side < sides; side++) {
      const rs = side === 0 ? before : after
      const wt = sides === 1 ? 1 : side === 0 ? 1 - weight : weight
      if (gp !== null) {
        put(rs, gp.i, gp.j, wt)
      } else {
        put(rs, stencil.i0, stencil.j0, stencil.w00 * wt)
        put(rs, stencil.i1, stencil.j0, stencil.w10 * wt)
        put(rs, stencil.i0, stencil.j1, stencil.w01 * wt)
        put(rs, stencil.i1, stencil.j1, stencil.w11 * wt)
      }
    }
  }
  plan.unitKeys = [...keys]
  return plan
}
