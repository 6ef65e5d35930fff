// The samples engine (docs/DESIGN.md §6): plan from the catalog → check the cost → load each
// decoded piece once through the field room → compute slices of points (main thread, or pool
// workers over the same shared tiles) → columns. HTTP-free: the samples route and the
// trajectory predictor both call it in process.
import { Counter, Histogram, type Registry } from 'prom-client'
import type { AccountStore } from '../accounts/index.js'
import { SAMPLE_STATUSES, type SampleUnit } from '../contract/index.js'
import {
  UnusableUnitError, VAR, decodedKey, gridX, gridY, pieceBox, type DecodedUnit, type Field, type WorkerPool
} from '../field/index.js'
import { SourceError, isoTime, validTime, type Source } from '../source/index.js'
import type { LatLonGrid } from '../grib/index.js'
import { computeSamples, OUT_COLUMNS, OUTSIDE_SOURCE, UNUSABLE, type SampleTask } from './kernel.js'
import { planSamples, type Plan, type PlanSource } from './plan.js'
import { SLICE_POINTS } from './order.js'
import { numberBytesLength, samplesJson, type JsonPart } from './json.js'
import { createSession, type SampleSession } from './session.js'
import { samplePiece } from './column-store.js'
import { LOCAL_ARRAYS, type SampleOptions, type SamplePoints } from './points.js'
import { ArenaArrays, ArenaBudget, arenaFor } from './arena.js'

export { SLICE_POINTS } from './order.js'
export type { HeldSamples, SampleSession } from './session.js'

/** More distinct source units than a request may use: the contract's 400. */
export class TooManyUnitsError extends Error {
  override readonly name = 'TooManyUnitsError'
  constructor (readonly needed: number, readonly limit: number) {
    super(`the points need ${needed} distinct source units; at most ${limit} are allowed per request`)
  }
}

export interface SamplesResult {
  n: number
  options: SampleOptions
  units: SampleUnit[]
  /** The decoded pieces read (null: failed), which `units` describes. */
  pieces: ReadonlyArray<DecodedUnit | null>
  /** Per point, SAMPLE_STATUSES index. */
  status: Uint8Array
  /** Per point: 1 where a column's nearest level answered (out_of_column: nearest_level). */
  clamped: Uint8Array
  /** OUT_COLUMNS × n, column-major (kernel.ts); NaN where a point is not ok. */
  out: Float64Array
  /** Per point, index into `units`; −1 when no unit answers its time. */
  unitBefore: Int32Array
  unitAfter: Int32Array
  timeWeight: Float64Array
}

export interface SamplesEngineOptions {
  source: Source
  field: Field
  store: AccountStore
  registry: Registry
  maxUnits: number
  /** Requests of at least this many points are computed on the pool. */
  workerThreshold: number
  /** Shared memory the large requests may hold together (bytes); unbounded when absent. */
  memoryBytes?: number
}

export class SamplesEngine {
  readonly #o: SamplesEngineOptions
  readonly #points: Counter
  readonly #statuses: Counter<'status'>
  readonly #perRequest: Histogram
  readonly #seconds: Histogram<'where'>
  readonly #memory: ArenaBudget | undefined

  constructor (options: SamplesEngineOptions) {
    this.#o = options
    this.#memory = options.memoryBytes === undefined ? undefined : new ArenaBudget(options.memoryBytes)
    const registers = [options.registry]
    this.#points = new Counter({ name: 'aloft_samples_points_total', help: 'Points sampled', registers })
    this.#statuses = new Counter({ name: 'aloft_samples_point_status_total', help: 'Sampled points by status',
      labelNames: ['status'], registers })
    this.#perRequest = new Histogram({ name: 'aloft_samples_points_per_request', help: 'Points per samples request',
      buckets: [1, 10, 100, 1000, 10_000, 100_000, 1_000_000], registers })
    this.#seconds = new Histogram({ name: 'aloft_samples_compute_seconds',
      help: 'Time computing the points of one request (after its data is loaded), by where it ran',
      labelNames: ['where'], buckets: [0.0005, 0.002, 0.01, 0.05, 0.2, 1, 5], registers })
  }

  /**
   * Plans the points and checks their cost before any fetch: more distinct units than allowed is
   * TooManyUnitsError; more units not yet cached than the account's remaining allowance is the
   * source's daily_allowance_exhausted.
   */
  async plan (
    points: SamplePoints, options: SampleOptions, accountId: string, source: PlanSource = this.#o.source
  ): Promise<Plan> {
    const arrays = this.#inWorkers(points.n) ? arenaFor(points.n, this.#memory) : LOCAL_ARRAYS
    try {
      const plan = await planSamples(points, options, source, this.#sliceSize(points.n), arrays)
      if (plan.unitKeys.length > this.#o.maxUnits) throw new TooManyUnitsError(plan.unitKeys.length, this.#o.maxUnits)
      const uncached = plan.unitKeys.filter((k) => !this.#o.source.isCached(k)).length
      if (uncached > 0) {
        const allowance = await this.#o.store.allowance(accountId)
        if (uncached > allowance.remaining) {
          throw new SourceError('daily_allowance_exhausted', {
            detail: `the points need ${uncached} source unit(s) not yet cached and the account has ` +
              `${allowance.remaining} of its ${allowance.limit} upstream attempts left today`,
            retryAfterSeconds: allowance.reset_after_seconds,
            accountId
          })
        }
      }
      return plan
    } catch (err) {
      if (arrays instanceof ArenaArrays) arrays.release()
      throw err
    }
  }

  /** Shared memory the large requests hold now, and its bound (metrics, tests). */
  memoryInUse (): { used: number, limit: number } {
    return { used: this.#memory?.used ?? 0, limit: this.#memory?.limit ?? Infinity }
  }

  /** Requests of workerThreshold points or more run on the pool, in at least one slice per thread. */
  #inWorkers (n: number): boolean {
    return n >= this.#o.workerThreshold
  }

  #sliceSize (n: number): number {
    return this.#inWorkers(n) ? Math.min(SLICE_POINTS, Math.ceil(n / this.#o.field.pool.threads())) : SLICE_POINTS
  }

  /**
   * Loads every planned piece (each unit fetched once, shared with concurrent requests). A piece
   * the source no longer holds, or cannot use, makes its points' status; anything else (the
   * source busy, the allowance gone meanwhile, the store down) fails the request once every load
   * has settled.
   */
  async load (
    plan: Plan, accountId: string, deadline = this.#o.source.deadline(), held?: Map<string, DecodedUnit>
  ): Promise<LoadedPlan> {
    const settled = await Promise.allSettled(plan.pieces.map(async (piece) => {
      if (held === undefined) return await this.#o.field.loadPiece(piece.unit, piece.point, accountId, deadline)
      const key = decodedKey(piece.unit.key, pieceBox(piece.unit, piece.point))
      const kept = held.get(key)
      if (kept !== undefined) return { unit: kept, hit: true }
      const loaded = await this.#o.field.loadPiece(piece.unit, piece.point, accountId, deadline)
      held.set(key, loaded.unit)
      return loaded
    }))
    const pieces: Array<DecodedUnit | null> = []
    const { arrays } = plan
    const pieceStatus = arrays.uint8(plan.pieces.length)
    // a sub-region tile has its own grid: where the plan's grid point (0, 0) falls on it
    const shiftI = arrays.int32(plan.pieces.length)
    const shiftJ = arrays.int32(plan.pieces.length)
    let fatal: unknown = null
    settled.forEach((s, k) => {
      pieces.push(null)
      if (s.status === 'fulfilled') {
        const shift = gridShift(plan.grid, s.value.unit.layout.grid)
        if (shift === null) {
          pieceStatus[k] = UNUSABLE
        } else {
          pieces[k] = s.value.unit
          shiftI[k] = shift.i
          shiftJ[k] = shift.j
        }
      } else if (s.reason instanceof SourceError && s.reason.code === 'outside_source_coverage') {
        pieceStatus[k] = OUTSIDE_SOURCE
      } else if (s.reason instanceof UnusableUnitError) {
        pieceStatus[k] = UNUSABLE
      } else {
        fatal ??= s.reason
      }
    })
    if (fatal !== null) throw fatal
    return { plan, pieces, pieceStatus, shiftI, shiftJ }
  }

  /**
   * Computes every point, in slices of at most SLICE_POINTS handed to `onSlice` in order as they
   * are done (the Arrow response writes each as a record batch). Requests of workerThreshold
   * points or more run on the pool, the slices in parallel.
   */
  async compute (
    loaded: LoadedPlan, points: SamplePoints, options: SampleOptions,
    onSlice?: (result: SamplesResult, start: number, end: number) => void | Promise<void>
  ): Promise<SamplesResult> {
    return await this.#compute(loaded, options, onSlice, true)
  }

  /** `perRequest`: observe the per-request metrics (a session's calls count their points only). */
  async #compute (
    loaded: LoadedPlan, options: SampleOptions,
    onSlice: ((result: SamplesResult, start: number, end: number) => void | Promise<void>) | undefined,
    perRequest: boolean
  ): Promise<SamplesResult> {
    const { plan, pieces, pieceStatus, shiftI, shiftJ } = loaded
    const n = plan.n
    // written whole by the slices (NaN where a point is not ok)
    const out = plan.arrays.float64(n * OUT_COLUMNS)
    const clamped = plan.arrays.uint8(n)
    // filled in place, slice by slice: `onSlice` may read a slice as soon as it is done
    const result = new ComputedSamples(plan, options, pieces, clamped, out)
    const task: Omit<SampleTask, 'start' | 'end'> = {
      grid: plan.grid,
      pieces: pieces.map((u) => u === null ? null : samplePiece(u)),
      pieceStatus,
      pieceCells: plan.pieceCells,
      shiftI,
      shiftJ,
      n,
      order: plan.order,
      at: plan.at,
      agl: options.altitudeReference === 'agl',
      clamp: options.clamp,
      nearest: options.interpolation === 'nearest',
      status: plan.status,
      clamped,
      out
    }
    const pool = this.#o.field.pool
    const inWorkers = this.#inWorkers(n)
    const started = perRequest ? process.hrtime.bigint() : 0n
    const size = plan.sliceSize
    const slices: Array<[number, number]> = []
    for (let s = 0; s < n; s += size) slices.push([s, Math.min(n, s + size)])
    if (inWorkers) {
      const running = slices.map(async ([start, end]) => await runOnPool(pool, { ...task, start, end }))
      // the first failure is thrown below; the others must not surface as unhandled rejections
      for (const r of running) r.catch(() => {})
      try {
        for (let k = 0; k < slices.length; k++) {
          await running[k]
          await onSlice?.(result, slices[k][0], slices[k][1])
        }
      } catch (err) {
        // the other slices still write to the request's arrays: settled before anyone may reuse them
        await Promise.allSettled(running)
        throw err
      }
    } else {
      for (const [start, end] of slices) {
        computeSamples({ ...task, start, end })
        if (onSlice === undefined) continue
        await onSlice(result, start, end)
        // let what the slice wrote leave (and other requests run) before the next slice
        if (end < n) await new Promise((resolve) => setImmediate(resolve))
      }
    }
    this.#points.inc(n)
    if (!perRequest) return result
    this.#seconds.observe({ where: inWorkers ? 'workers' : 'main' }, Number(process.hrtime.bigint() - started) / 1e9)
    this.#perRequest.observe(n)
    const counts = new Array<number>(SAMPLE_STATUSES.length).fill(0)
    for (let p = 0; p < n; p++) counts[plan.status[p]]++
    counts.forEach((c, k) => { if (c > 0) this.#statuses.inc({ status: SAMPLE_STATUSES[k] }, c) })
    return result
  }

  /**
   * Hands a request's arrays back for reuse (a large request's shared memory, arena.ts): call it
   * once nothing reads the plan or its result any more — the answer formatted, or written.
   */
  release (loaded: Pick<LoadedPlan, 'plan'>): void {
    if (loaded.plan.arrays instanceof ArenaArrays) loaded.plan.arrays.release()
  }

  /**
   * The JSON answer, as pieces of text; a large one has its columns formatted on the pool in
   * parallel, into the request's shared memory when `loaded` has it (then release it only after
   * the answer is written).
   */
  async json (result: SamplesResult, loaded?: LoadedPlan): Promise<JsonPart[]> {
    const pool = this.#o.field.pool
    if (result.n < this.#o.workerThreshold) return await samplesJson(result)
    const arena = loaded?.plan.arrays
    if (!(arena instanceof ArenaArrays)) {
      return await samplesJson(result, async (values) => await pool.run<Uint8Array>('samplesJsonColumn', { values }))
    }
    // each column written into the request's reused memory (new pages cost more than the formatting's
    // copy): the parts are views of it, so the request's arrays go back only once the answer is written
    return await samplesJson(result, async (values) => {
      const out = arena.bytes(numberBytesLength(values.length))
      return out.subarray(0, await pool.run<number>('samplesJsonColumn', { values, out }))
    })
  }

  /** plan → load → compute, for callers in process (tests, one-off calls). */
  async sample (points: SamplePoints, options: SampleOptions, accountId: string): Promise<SamplesResult> {
    const loaded = await this.load(await this.plan(points, options, accountId), accountId)
    return await this.compute(loaded, points, options)
  }

  /**
   * For many small calls in a row over nearby places and times (a flight: one call per RK4 stage):
   * the source's grid and catalog entries are read once per hour of time, each decoded piece is
   * looked up once and held for the session, and calls over held pieces skip the plan (session.ts).
   * Costs are checked per call as in `sample` whenever something is to be loaded.
   */
  session (options: SampleOptions, accountId: string): SampleSession {
    const source = this.#o.source
    return createSession({
      source,
      plan: async (points, planSource) => await this.plan(points, options, accountId, planSource),
      load: async (plan, deadline, held) => await this.load(plan, accountId, deadline, held),
      compute: async (loaded) => await this.#compute(loaded, options, undefined, false),
      counted: (n) => this.#points.inc(n),
      maxUnits: this.#o.maxUnits,
      workerThreshold: this.#o.workerThreshold
    }, options)
  }
}

export interface LoadedPlan {
  plan: Plan
  pieces: Array<DecodedUnit | null>
  pieceStatus: Uint8Array
  /** Per piece: the plan's grid point (0, 0) on the piece's own grid. */
  shiftI: Int32Array
  shiftJ: Int32Array
}

/**
 * Where the plan's grid point (0, 0) lies on a piece's grid, in whole grid steps (the piece's
 * column 0 is the plan's column i); null when the two grids do not share their points.
 */
function gridShift (plan: LatLonGrid, piece: LatLonGrid): { i: number, j: number } | null {
  if (piece.di !== plan.di || piece.dj !== plan.dj) return null
  const x = gridX(plan, piece.west)
  const y = gridY(plan, piece.south)
  const i = Math.round(x)
  const j = Math.round(y)
  if (Math.abs(x - i) > 1e-6 || Math.abs(y - j) > 1e-6) return null
  return { i: plan.global && i >= plan.ni ? i - plan.ni : i, j }
}

/**
 * A result whose `units` are described when first read (a flight's many small calls mostly never
 * read them); a class, so the getter lives on the prototype and results stay plain fast objects.
 */
class ComputedSamples implements SamplesResult {
  readonly n: number
  readonly status: Uint8Array
  readonly unitBefore: Int32Array
  readonly unitAfter: Int32Array
  readonly timeWeight: Float64Array
  #units: SampleUnit[] | undefined

  constructor (
    readonly plan: Plan, readonly options: SampleOptions, readonly pieces: ReadonlyArray<DecodedUnit | null>,
    readonly clamped: Uint8Array, readonly out: Float64Array
  ) {
    this.n = plan.n
    this.status = plan.status
    this.unitBefore = plan.unitBefore
    this.unitAfter = plan.unitAfter
    this.timeWeight = plan.timeWeight
  }

  get units (): SampleUnit[] {
    return (this.#units ??= describeUnits(this.plan, this.pieces))
  }
}

async function runOnPool (pool: WorkerPool, task: SampleTask): Promise<void> {
  await pool.run<null>('samples', task)
}

/** The response's `units`: each (run, step) named, with the source pieces read for it. */
function describeUnits (plan: Plan, pieces: ReadonlyArray<DecodedUnit | null>): SampleUnit[] {
  return plan.runSteps.map((rs, k) => {
    const read = new Map<string, DecodedUnit>()
    plan.pieces.forEach((piece, p) => {
      const unit = pieces[p]
      if (piece.runStep === k && unit !== null && !read.has(unit.unitKey)) read.set(unit.unitKey, unit)
    })
    const sources = [...read.values()].map((u) => ({
      unit_key: u.unitKey, source_sha256: u.sha256, retrieved_at: isoTime(u.retrievedAt.getTime())
    }))
    const first = read.values().next().value
    return {
      model_run_at: isoTime(rs.run),
      forecast_hour: rs.step,
      valid_time: isoTime(validTime(rs)),
      source_sha256: sources.length === 1 ? sources[0].source_sha256 : null,
      retrieved_at: sources.length === 1 ? sources[0].retrieved_at : null,
      specific_humidity_source: first === undefined ? null
        : first.layout.present[VAR.SPFH] ? 'spfh' : 'rh_inverted_ncep_upp',
      sources
    }
  })
}

