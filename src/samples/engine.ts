// The samples engine (docs/DESIGN.md §6): plan from the catalog → check the cost → load each
// decoded piece once through the field room → compute slices of points (main thread, or pool
// workers over the same shared tiles) → columns. HTTP-free: the samples route and the
// trajectory predictor both call it in process.
import type { Registry } from 'prom-client'
import type { AccountStore } from '../accounts/index.js'
import type { DecodedUnit, Field, WorkerPool } from '../field/index.js'
import type { Source } from '../source/index.js'
import { ArenaArrays, ArenaBudget, arenaFor } from './arena.js'
import { LOCAL_ARRAYS } from './arrays.js'
import { samplePiece } from './column-store.js'
import { ComputedSamples } from './computed-samples.js'
import { checkCost } from './cost.js'
import { numberBytesLength, samplesJson, type JsonPart } from './json/index.js'
import { computeSamples } from './kernel.js'
import { sampleTask, type SampleTask } from './kernel-task.js'
import { loadPlan, type LoadedPlan } from './load.js'
import { SamplesMetrics } from './metrics.js'
import { SLICE_POINTS } from './order.js'
import { planSamples, type Plan, type PlanSource } from './plan.js'
import type { SampleOptions, SamplePoints } from './points.js'
import { OUT_COLUMNS, type SamplesResult } from './result.js'
import { createSession, type SampleSession } from './session.js'

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

/** Called with each slice of points [start, end) as soon as it is computed. */
export type OnSlice = (result: SamplesResult, start: number, end: number) => void | Promise<void>

export class SamplesEngine {
  readonly #options: SamplesEngineOptions
  readonly #metrics: SamplesMetrics
  readonly #memory: ArenaBudget | undefined

  constructor (options: SamplesEngineOptions) {
    this.#options = options
    this.#memory = options.memoryBytes === undefined ? undefined : new ArenaBudget(options.memoryBytes)
    this.#metrics = new SamplesMetrics(options.registry)
  }

  /**
   * Plans the points and checks their cost before any fetch (cost.ts): more distinct units than
   * allowed is TooManyUnitsError; more units not yet cached than the account's remaining
   * allowance is the source's daily_allowance_exhausted.
   */
  async plan (
    points: SamplePoints, options: SampleOptions, accountId: string, source: PlanSource = this.#options.source
  ): Promise<Plan> {
    const arrays = this.#inWorkers(points.n) ? arenaFor(points.n, this.#memory) : LOCAL_ARRAYS
    try {
      const plan = await planSamples(points, options, source, this.#sliceSize(points.n), arrays)
      await checkCost(plan.unitKeys, this.#options, accountId)
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
    return n >= this.#options.workerThreshold
  }

  #sliceSize (n: number): number {
    return this.#inWorkers(n) ? Math.min(SLICE_POINTS, Math.ceil(n / this.#options.field.pool.threads())) : SLICE_POINTS
  }

  /**
   * Loads every planned piece (load.ts): each unit fetched once, shared with concurrent requests;
   * a piece the source no longer holds, or cannot use, makes its points' status.
   */
  async load (
    plan: Plan, accountId: string, deadline = this.#options.source.deadline(), held?: Map<string, DecodedUnit>
  ): Promise<LoadedPlan> {
    return await loadPlan(this.#options.field, plan, accountId, deadline, held)
  }

  /**
   * Computes every point, in slices of at most SLICE_POINTS handed to `onSlice` in order as they
   * are done (the Arrow response writes each as a record batch). Requests of workerThreshold
   * points or more run on the pool, the slices in parallel.
   */
  async compute (loaded: LoadedPlan, options: SampleOptions, onSlice?: OnSlice): Promise<SamplesResult> {
    return await this.#compute(loaded, options, onSlice, true)
  }

  /** `perRequest`: observe the per-request metrics (a session's calls count their points only). */
  async #compute (
    loaded: LoadedPlan, options: SampleOptions, onSlice: OnSlice | undefined, perRequest: boolean
  ): Promise<SamplesResult> {
    const { plan, pieces } = loaded
    const n = plan.n
    // written whole by the slices (NaN where a point is not ok)
    const out = plan.arrays.float64(n * OUT_COLUMNS)
    const clamped = plan.arrays.uint8(n)
    // filled in place, slice by slice: `onSlice` may read a slice as soon as it is done
    const result = new ComputedSamples(plan, options, pieces, loaded.pieceStatus, clamped, out)
    const task = sampleTask(options, plan, {
      pieces: pieces.map((u) => u === null ? null : samplePiece(u)),
      pieceStatus: loaded.pieceStatus,
      shiftI: loaded.shiftI,
      shiftJ: loaded.shiftJ
    }, clamped, out)
    const inWorkers = this.#inWorkers(n)
    const started = perRequest ? process.hrtime.bigint() : 0n
    const slices: Array<[number, number]> = []
    for (let s = 0; s < n; s += plan.sliceSize) slices.push([s, Math.min(n, s + plan.sliceSize)])
    if (inWorkers) await computeOnPool(this.#options.field.pool, task, slices, result, onSlice)
    else await computeHere(task, slices, result, onSlice)
    this.#metrics.counted(n)
    if (perRequest) this.#metrics.request(plan.status, n, inWorkers, started)
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
    const pool = this.#options.field.pool
    if (result.n < this.#options.workerThreshold) return await samplesJson(result)
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
    return await this.compute(loaded, options)
  }

  /**
   * For many small calls in a row over nearby places and times (a flight: one call per RK4 stage):
   * the source's grid and catalog entries are read once per hour of time, each decoded piece is
   * looked up once and held for the session, and calls over held pieces skip the plan (session.ts).
   * Costs are checked per call as in `sample` whenever something is to be loaded.
   */
  session (options: SampleOptions, accountId: string): SampleSession {
    return createSession({
      source: this.#options.source,
      plan: async (points, planSource) => await this.plan(points, options, accountId, planSource),
      load: async (plan, deadline, held) => await this.load(plan, accountId, deadline, held),
      compute: async (loaded) => await this.#compute(loaded, options, undefined, false),
      counted: (n) => this.#metrics.counted(n),
      maxUnits: this.#options.maxUnits,
      workerThreshold: this.#options.workerThreshold
    }, options)
  }
}

/** The slices in parallel on the pool, handed to `onSlice` in order. */
async function computeOnPool (
  pool: WorkerPool, task: SampleTask, slices: Array<[number, number]>, result: SamplesResult, onSlice?: OnSlice
): Promise<void> {
  const running = slices.map(async ([start, end]) => { await pool.run<null>('samples', { ...task, start, end }) })
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
}

/** The slices one after the other on this thread, each handed to `onSlice` when done. */
async function computeHere (
  task: SampleTask, slices: Array<[number, number]>, result: SamplesResult, onSlice?: OnSlice
): Promise<void> {
  for (const [start, end] of slices) {
    computeSamples({ ...task, start, end })
    if (onSlice === undefined) continue
    await onSlice(result, start, end)
    // let what the slice wrote leave (and other requests run) before the next slice
    if (end < task.n) await new Promise((resolve) => setImmediate(resolve))
  }
}
