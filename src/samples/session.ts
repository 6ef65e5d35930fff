// A samples session (SamplesEngine.session): many small calls in a row over nearby places and
// times — a flight, one call per RK4 stage. A call needing a piece the session does not hold yet
// goes through the engine (plan → cost check → load → compute); the others are answered at once
// from what the session holds: the time choice from the same catalog entries, the same decoded
// pieces and the samples kernel itself, without the plan's per-call sorting, tables and arrays.
import type { DecodedUnit } from '../field/index.js'
import { createStencil, gridX, gridY, stencilAt } from '../field/index.js'
import type { LatLonGrid } from '../grib/index.js'
import type { HeldRunStep } from '../source/index.js'
import { LOCAL_ARRAYS } from './arrays.js'
import { CellTables, cellIndex, grownInt32, pieceAt, stencilSlots } from './cells.js'
import { samplePiece } from './column-store.js'
import { distinctHoursOf, hoursKey, wholeHourOf } from './hours.js'
import { computeSamples } from './kernel.js'
import { positionInputs, sampleTask, type SampleTask } from './kernel-task.js'
import type { LoadedPlan } from './load.js'
import type { Plan, PlanSource } from './plan.js'
import type { SampleOptions, SamplePoints } from './points.js'
import { OK, OUT_COLUMNS, OUTSIDE_SOURCE, type HeldSamples, type SamplesResult } from './result.js'
import { timeIndexFor, type TimeIndex } from './time-plan.js'

export interface SampleSession {
  /** plan → cost check → load → compute, the pieces loaded held for the session's later calls. */
  sample: (points: SamplePoints) => Promise<SamplesResult>
  /**
   * The points from the pieces an earlier `sample` of the session loaded (so listed in its
   * result), at once: nothing is fetched, so nothing is charged. Null, having computed nothing,
   * when a point needs anything else (then call `sample`).
   */
  sampleHeld: (points: SamplePoints) => HeldSamples | null
}

/** What a session needs of the engine. */
export interface SessionEngine {
  source: PlanSource & { deadline: () => number }
  plan: (points: SamplePoints, source: PlanSource) => Promise<Plan>
  load: (plan: Plan, deadline: number, held: Map<string, DecodedUnit>) => Promise<LoadedPlan>
  compute: (loaded: LoadedPlan) => Promise<SamplesResult>
  /** Counts the points a held call computed. */
  counted: (n: number) => void
  maxUnits: number
  /** Calls of at least this many points go through the engine (its pool). */
  workerThreshold: number
}

export function createSession (engine: SessionEngine, options: SampleOptions): SampleSession {
  const { source } = engine
  let grid: Promise<LatLonGrid> | undefined
  const near = new Map<string, Promise<HeldRunStep[]>>()
  const planSource: PlanSource = {
    sourceGrid: async () => await (grid ??= source.sourceGrid()),
    entriesNear: async (hours) => {
      const list = [...hours]
      const key = hoursKey(list)
      let entries = near.get(key)
      if (entries === undefined) {
        near.set(key, entries = source.entriesNear(list))
        // held calls choose their times from the same entries, once read
        entries.then((read) => pieces.entriesRead(key, read), () => {})
      }
      return await entries
    },
    unitAt: (rs, i, j) => source.unitAt(rs, i, j),
    maxTimeOffsetMs: source.maxTimeOffsetMs
  }
  const held = new Map<string, DecodedUnit>()
  const pieces = new HeldPieces(engine, options)
  return {
    sample: async (points) => {
      const loaded = await engine.load(await engine.plan(points, planSource), source.deadline(), held)
      pieces.add(loaded)
      return await engine.compute(loaded)
    },
    sampleHeld: (points) => pieces.sample(points)
  }
}

/**
 * The pieces a session holds, by (run, step) and cell as the plan tables them (cells.ts), and a
 * samples task over them reused by every held call.
 */
class HeldPieces {
  readonly #engine: SessionEngine
  readonly #options: SampleOptions
  /** Catalog entries read, by the hours they were read for (the plan's key). */
  readonly #entries = new Map<string, HeldRunStep[]>()
  /** The last single hour met and its time index. */
  #hour = NaN
  #index: TimeIndex | null = null
  /** The last instant met and its choice (session (run, step)s; −1: none) from `#tIndex`. */
  #t = NaN
  #tIndex: TimeIndex | null = null
  #before = -1
  #after = -1
  #weight = NaN
  /** (run, step)s, numbered for the session: by entry object, and by run/step for other objects of the same. */
  readonly #rs = new Map<HeldRunStep, number>()
  readonly #rsNamed = new Map<string, number>()
  readonly #tables = new CellTables()

  /** Per piece: its source unit (numbered), for the per-call unit limit. */
  #pieceUnit: Int32Array = new Int32Array(0)
  readonly #units = new Map<string, number>()
  /** Per unit: the last call that counted it; the current call and the units it counted. */
  #unitCall: Int32Array = new Int32Array(0)
  #call = 0
  #callUnits = 0

  /** The kernel's task over the held pieces, from the first engine call on (its grid the plan's). */
  #task: SampleTask | undefined
  readonly #out: HeldSamples = { n: 0, status: new Uint8Array(0), clamped: new Uint8Array(0), out: new Float64Array(0) }
  readonly #stencil = createStencil()
  /** The current point's stencil corners (cells.ts). */
  readonly #cornerI = new Int32Array(4)
  readonly #cornerJ = new Int32Array(4)
  readonly #cornerW = new Float64Array(4)

  constructor (engine: SessionEngine, options: SampleOptions) {
    this.#engine = engine
    this.#options = options
  }

  #taskOn (grid: LatLonGrid): SampleTask {
    const out = this.#out
    return (this.#task ??= sampleTask(this.#options,
      { grid, pieceCells: this.#tables.cells, n: 0, order: new Int32Array(0), at: positionInputs(LOCAL_ARRAYS, 0),
        status: out.status },
      { pieces: [], pieceStatus: new Uint8Array(0), shiftI: new Int32Array(0), shiftJ: new Int32Array(0) },
      out.clamped, out.out))
  }

  entriesRead (key: string, entries: HeldRunStep[]): void {
    this.#entries.set(key, entries)
  }

  /** Holds the usable pieces an engine call loaded. */
  add (loaded: LoadedPlan): void {
    const { plan } = loaded
    const task = this.#taskOn(plan.grid)
    plan.pieces.forEach((piece, k) => {
      const unit = loaded.pieces[k]
      if (unit === null) return
      const rs = this.#rsOf(plan.runSteps[piece.runStep])
      const tables = this.#tables
      if (!tables.has(rs)) tables.add(rs, plan.pieceCells.size[piece.runStep], task.grid)
      const c = tables.cells
      const cell = cellIndex(c, rs, piece.point.i, piece.point.j)
      if (c.cells[cell] >= 0) return
      const p = task.pieces.length
      c.cells[cell] = p
      task.pieces.push(samplePiece(unit))
      task.shiftI = grownInt32(task.shiftI, p + 1)
      task.shiftJ = grownInt32(task.shiftJ, p + 1)
      task.shiftI[p] = loaded.shiftI[k]
      task.shiftJ[p] = loaded.shiftJ[k]
      // all OK: only usable pieces are held
      if (task.pieceStatus.length <= p) task.pieceStatus = new Uint8Array(Math.max(8, 2 * p))
      let u = this.#units.get(piece.unit.key)
      if (u === undefined) this.#units.set(piece.unit.key, u = this.#units.size)
      this.#pieceUnit = grownInt32(this.#pieceUnit, p + 1)
      this.#pieceUnit[p] = u
      this.#unitCall = grownInt32(this.#unitCall, u + 1)
    })
  }

  /** The session's number for a (run, step). */
  #rsOf (e: HeldRunStep): number {
    let rs = this.#rs.get(e)
    if (rs !== undefined) return rs
    const name = `${e.run}/${e.step}`
    rs = this.#rsNamed.get(name)
    if (rs === undefined) {
      rs = this.#rsNamed.size
      this.#rsNamed.set(name, rs)
    }
    this.#rs.set(e, rs)
    return rs
  }

  /** The time index of the points' hours, when their catalog entries were read. */
  #timeIndex (time: Float64Array, n: number): TimeIndex | null {
    const hour = wholeHourOf(time[0])
    let one = true
    for (let p = 1; p < n && one; p++) one = wholeHourOf(time[p]) === hour
    if (one && hour === this.#hour) return this.#index
    // the key the plan's read was held under
    const entries = this.#entries.get(hoursKey(distinctHoursOf(time, n)))
    if (entries === undefined) return null
    const index = timeIndexFor(entries, this.#options.run, this.#engine.source.maxTimeOffsetMs)
    if (one) {
      this.#hour = hour
      this.#index = index
    }
    return index
  }

  sample (points: SamplePoints): HeldSamples | null {
    const n = points.n
    const task = this.#task
    // the plan's `nearest` rule is not repeated here: such sessions always call the engine
    if (task === undefined || this.#options.interpolation !== 'linear' || n === 0 ||
      n >= this.#engine.workerThreshold) return null
    const index = this.#timeIndex(points.time, n)
    if (index === null) return null
    this.#room(task, n)
    const { grid, at, status, clamped } = task
    const s = this.#stencil
    const cornerI = this.#cornerI
    const cornerJ = this.#cornerJ
    const cornerW = this.#cornerW
    // the last instant's choice stands for the same index only
    if (index !== this.#tIndex) {
      this.#tIndex = index
      this.#t = NaN
    }
    this.#call++
    this.#callUnits = 0
    for (let p = 0; p < n; p++) {
      const t = points.time[p]
      if (t !== this.#t) this.#choose(index, t)
      const before = this.#before
      const after = this.#after
      status[p] = OK
      clamped[p] = 0
      if (before < 0) { status[p] = OUTSIDE_SOURCE; continue }
      const x = gridX(grid, points.longitude[p])
      const y = gridY(grid, points.latitude[p])
      if (!stencilAt(grid, x, y, s)) { status[p] = OUTSIDE_SOURCE; continue }
      // every weighted corner's piece held (as the plan registers them)
      stencilSlots(s, 1, 0, cornerI, cornerJ, cornerW)
      for (let side = 0; side < (before === after ? 1 : 2); side++) {
        const rs = side === 0 ? before : after
        for (let c = 0; c < 4; c++) if (cornerW[c] !== 0 && !this.#held(rs, cornerI[c], cornerJ[c])) return null
      }
      at.x[p] = x
      at.y[p] = y
      at.before[p] = before
      at.after[p] = after
      at.weight[p] = this.#weight
      at.altitude[p] = points.altitude[p]
      at.ground[p] = points.ground[p]
    }
    // more distinct units than a call may use: the engine's refusal
    if (this.#callUnits > this.#engine.maxUnits) return null
    task.n = n
    task.end = n
    computeSamples(task)
    this.#engine.counted(n)
    const out = this.#out
    out.n = n
    return out
  }

  /** Whether the piece of grid point (i, j) of rs is held; counts its unit for the call. */
  #held (rs: number, i: number, j: number): boolean {
    if (!this.#tables.has(rs)) return false
    const piece = pieceAt(this.#tables.cells, rs, i, j)
    if (piece < 0) return false
    const u = this.#pieceUnit[piece]
    if (this.#unitCall[u] !== this.#call) {
      this.#unitCall[u] = this.#call
      this.#callUnits++
    }
    return true
  }

  #choose (index: TimeIndex, t: number): void {
    const choice = index.linear(t)
    this.#t = t
    this.#before = choice === null ? -1 : this.#rsOf(choice.before)
    this.#after = choice === null ? -1 : this.#rsOf(choice.after)
    this.#weight = choice === null ? NaN : choice.weight
  }

  /** Task arrays for n points (the processing order the points' own). */
  #room (task: SampleTask, n: number): void {
    if (task.order.length >= n) return
    const size = Math.max(n, 2 * task.order.length)
    task.order = Int32Array.from({ length: size }, (_, r) => r)
    task.at = positionInputs(LOCAL_ARRAYS, size)
    task.status = this.#out.status = new Uint8Array(size)
    task.clamped = this.#out.clamped = new Uint8Array(size)
    task.out = this.#out.out = new Float64Array(size * OUT_COLUMNS)
  }
}
