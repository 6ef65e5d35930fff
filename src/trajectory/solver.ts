// The flight solver (docs/DESIGN.md §7): classical RK4 with a fixed 60 s step, many flights
// stepped together so that each RK4 stage is one batched evaluation of the air. It knows
// nothing of GRIB or HTTP: it takes an `Air` (the samples engine in the service, synthetic
// winds in the tests), and of balloons only the stage rules (stages.ts).
import { STEP_S, between, latitudeRate, longitudeRate, wrapLongitude } from './models.js'
import { AIR_OK, AIR_OUTSIDE, airBatch, type Air, type AirBatch } from './air-batch.js'
import { ruleOf, type Stage, type StageName } from './stages.js'

export interface FlightSpec {
  /** Launch: seconds since the epoch, degrees, metres MSL. */
  t: number
  latitude: number
  longitude: number
  altitude: number
  stages: Stage[]
  /** Keep every state (else only each stage's start and end). */
  record: boolean
}

/** How a flight ended. */
export type FlightEnd = 'complete' | 'left_source_coverage' | 'unusable_source_column'

/** A stage flown: its states as [t, lat, lon, alt] quadruples, flat. */
export interface FlownStage {
  stage: StageName
  points: number[]
}

export interface Flight {
  stages: FlownStage[]
  end: FlightEnd
  /** Evaluations whose altitude lay outside the column (the nearest level answered). */
  clamped: number
  /** A descent or float began at or below the model ground and ended there at once (docs/DESIGN.md §9). */
  startedBelowGround: boolean
}

/**
 * The solver gives the event loop a turn once it has held it this long: an evaluation answered
 * from held pieces never waits, so a long flight would otherwise run start to end in one turn.
 */
const YIELD_AFTER_MS = 5

/** Lets other work (requests, probes, timers) run. */
const turn = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

/**
 * Flies every spec to its end; evaluations are batched over the flights still flying. An aborted
 * `signal` (nobody is waiting for the answer any more) stops it at its next turn, rejecting with
 * the signal's reason.
 */
export async function fly (specs: FlightSpec[], air: Air, step: number = STEP_S,
  signal?: AbortSignal): Promise<Flight[]> {
  const run = new Flights(specs, air, step)
  let held = performance.now()
  while (run.active.length > 0) {
    if (performance.now() - held > YIELD_AFTER_MS) {
      await turn()
      signal?.throwIfAborted()
      held = performance.now()
    }
    await run.step()
  }
  return run.flights
}

/** Every flight's state, in arrays indexed by flight, and the batch its evaluations share. */
class Flights {
  readonly flights: Flight[]
  /** Flights still flying, by index. */
  active: number[]
  readonly #specs: FlightSpec[]
  readonly #air: Air
  readonly #step: number
  readonly #batch: AirBatch
  readonly #stage: Int32Array
  readonly #t: Float64Array
  /** lat, lon, alt × flights. */
  readonly #y: Float64Array
  /** The state a ground-ended step came from (t, lat, lon, alt), kept until the ground check of its end. */
  readonly #prev: Float64Array
  /** A step's end awaiting its ground check (it is recorded only once above ground). */
  readonly #pending: Uint8Array
  /** alt − ground at the last confirmed state of a ground-ended stage. */
  readonly #above: Float64Array
  /** 1 until the first evaluation of the flight's current stage has been checked. */
  readonly #fresh: Uint8Array
  /** k1 … k4 (3 each) per flight. */
  readonly #k: Float64Array

  constructor (specs: FlightSpec[], air: Air, step: number) {
    const n = specs.length
    this.#specs = specs
    this.#air = air
    this.#step = step
    this.#batch = airBatch(n)
    this.#stage = new Int32Array(n)
    this.#t = new Float64Array(n)
    this.#y = new Float64Array(3 * n)
    this.#prev = new Float64Array(4 * n)
    this.#pending = new Uint8Array(n)
    this.#above = new Float64Array(n)
    this.#fresh = new Uint8Array(n).fill(1)
    this.#k = new Float64Array(12 * n)
    this.flights = specs.map((s) => ({
      stages: [{ stage: s.stages[0].kind, points: [s.t, s.latitude, wrapLongitude(s.longitude), s.altitude] }],
      end: 'complete',
      clamped: 0,
      startedBelowGround: false
    }))
    this.active = specs.map((s, f) => {
      this.#t[f] = s.t
      this.#y[3 * f] = s.latitude
      this.#y[3 * f + 1] = wrapLongitude(s.longitude)
      this.#y[3 * f + 2] = s.altitude
      return f
    })
  }

  /** One RK4 step of every flight still flying. */
  async step (): Promise<void> {
    const step = this.#step
    // k1, at each flight's state; it also answers the ground check of a ground-ended stage
    await this.#evaluate(this.active, 0, 0, -1)
    let flying = this.#checkGround()
    await this.#evaluate(flying, step / 2, step / 2, 0)
    flying = this.#derive(flying, 1)
    await this.#evaluate(flying, step / 2, step / 2, 1)
    flying = this.#derive(flying, 2)
    await this.#evaluate(flying, step, step, 2)
    flying = this.#derive(flying, 3)
    this.active = flying.filter((f) => this.#advance(f))
  }

  /**
   * After k1: flights the air could not answer end; a pending step of a ground-ended stage is
   * confirmed above ground (and recorded) or ends the flight where it met the ground. The flights
   * that go on, with their k1.
   */
  #checkGround (): number[] {
    const batch = this.#batch
    const y = this.#y
    const flying: number[] = []
    for (let b = 0; b < this.active.length; b++) {
      const f = this.active[b]
      if (batch.status[b] !== AIR_OK) {
        // a pending step not yet recorded is dropped: the flight ends at the last recorded state
        this.#end(f, batch.status[b])
        continue
      }
      const rule = ruleOf(this.#stageOf(f))
      const above = y[3 * f + 2] - batch.ground[b]
      if (this.#fresh[f] === 1) {
        this.#fresh[f] = 0
        if (rule.landsIfStartedBelowGround && above <= 0) {
          // it ends where it is: its stage holds its start alone
          this.flights[f].startedBelowGround = true
          continue
        }
      }
      if (rule.endsOnGround) {
        if (this.#pending[f] === 1) {
          this.#pending[f] = 0
          if (above <= 0) {
            const p = 4 * f
            // inside the last step: the state before it was confirmed above the ground
            const frac = Math.min(1, Math.max(0, this.#above[f] / (this.#above[f] - above)))
            const [t, lat, lon, alt] = between(this.#prev[p], this.#prev[p + 1], this.#prev[p + 2], this.#prev[p + 3],
              y[3 * f], y[3 * f + 1], y[3 * f + 2], frac, this.#step)
            this.#record(f, t, lat, lon, alt)
            continue
          }
          this.#record(f, this.#t[f], y[3 * f], y[3 * f + 1], y[3 * f + 2])
        }
        this.#above[f] = above
      }
      this.#setK(f, b, 0)
      flying.push(f)
    }
    return flying
  }

  /** k (1–3) of each flight in `fs` from the evaluation just made; flights that could not be evaluated end. */
  #derive (fs: number[], slot: number): number[] {
    const kept: number[] = []
    for (let b = 0; b < fs.length; b++) {
      const f = fs[b]
      if (this.#batch.status[b] !== AIR_OK) {
        this.#end(f, this.#batch.status[b])
        continue
      }
      this.#setK(f, b, slot)
      kept.push(f)
    }
    return kept
  }

  /** Evaluates the air for each flight at its state plus `dt` and `scale` × k[slot] (slot −1: the state). */
  async #evaluate (fs: number[], dt: number, scale: number, slot: number): Promise<void> {
    const batch = this.#batch
    batch.n = fs.length
    if (fs.length === 0) return
    for (let b = 0; b < fs.length; b++) {
      const f = fs[b]
      const o = 12 * f + 3 * slot
      batch.t[b] = this.#t[f] + dt
      batch.latitude[b] = this.#y[3 * f] + (slot < 0 ? 0 : scale * this.#k[o])
      batch.longitude[b] = wrapLongitude(this.#y[3 * f + 1] + (slot < 0 ? 0 : scale * this.#k[o + 1]))
      batch.altitude[b] = this.#y[3 * f + 2] + (slot < 0 ? 0 : scale * this.#k[o + 2])
    }
    await this.#air(batch)
  }

  /** Flight f's k[slot] from evaluation b of the batch just made (counted if it clamped). */
  #setK (f: number, b: number, slot: number): void {
    const batch = this.#batch
    this.flights[f].clamped += batch.clamped[b]
    const o = 12 * f + 3 * slot
    this.#k[o] = latitudeRate(batch.v[b], batch.altitude[b])
    this.#k[o + 1] = longitudeRate(batch.u[b], batch.latitude[b], batch.altitude[b])
    const stage = this.#stageOf(f)
    this.#k[o + 2] = ruleOf(stage).climb(stage, batch.altitude[b], batch.density[b])
  }

  /**
   * Combines flight f's k into its next state and applies its stage's end rule; whether it goes
   * on flying.
   */
  #advance (f: number): boolean {
    const o = 12 * f
    const k = this.#k
    const step = this.#step
    const y = this.#y
    const t0 = this.#t[f]
    const lat0 = y[3 * f]
    const lon0 = y[3 * f + 1]
    const alt0 = y[3 * f + 2]
    const lat1 = lat0 + (step / 6) * (k[o] + 2 * k[o + 3] + 2 * k[o + 6] + k[o + 9])
    const lon1 = wrapLongitude(lon0 + (step / 6) * (k[o + 1] + 2 * k[o + 4] + 2 * k[o + 7] + k[o + 10]))
    const alt1 = alt0 + (step / 6) * (k[o + 2] + 2 * k[o + 5] + 2 * k[o + 8] + k[o + 11])
    const stage = this.#stageOf(f)
    const rule = ruleOf(stage)
    const frac = rule.crossing(stage, t0, alt0, alt1, step)
    if (frac >= 0) {
      const ended = between(t0, lat0, lon0, alt0, lat1, lon1, alt1, frac, step)
      if (rule.endAltitude !== undefined) ended[3] = rule.endAltitude(stage)
      this.#record(f, ended[0], ended[1], ended[2], ended[3])
      return this.#startNext(f, ended)
    }
    if (rule.endsOnGround) {
      // recorded once the next evaluation has found it above the ground
      const p = 4 * f
      this.#prev[p] = t0
      this.#prev[p + 1] = lat0
      this.#prev[p + 2] = lon0
      this.#prev[p + 3] = alt0
      this.#pending[f] = 1
    } else {
      this.#record(f, t0 + step, lat1, lon1, alt1)
    }
    this.#t[f] = t0 + step
    y[3 * f] = lat1
    y[3 * f + 1] = lon1
    y[3 * f + 2] = alt1
    return true
  }

  /** The next stage starts where the last ended; false when the flight is over. */
  #startNext (f: number, at: number[]): boolean {
    const next = this.#stage[f] + 1
    if (next >= this.#specs[f].stages.length) return false
    this.#stage[f] = next
    const stage = this.#specs[f].stages[next]
    this.flights[f].stages.push({ stage: stage.kind, points: [at[0], at[1], at[2], at[3]] })
    this.#t[f] = at[0]
    this.#y[3 * f] = at[1]
    this.#y[3 * f + 1] = at[2]
    this.#y[3 * f + 2] = at[3]
    this.#pending[f] = 0
    this.#fresh[f] = 1
    return !ruleOf(stage).overAt(stage, at[0])
  }

  /** Adds a state to the flight's current stage (unrecorded: a stage keeps its start and its newest state). */
  #record (f: number, t: number, lat: number, lon: number, alt: number): void {
    const stage = this.flights[f].stages[this.flights[f].stages.length - 1]
    if (!this.#specs[f].record && stage.points.length > 4) stage.points.length -= 4
    stage.points.push(t, lat, lon, alt)
  }

  #end (f: number, status: number): void {
    this.flights[f].end = status === AIR_OUTSIDE ? 'left_source_coverage' : 'unusable_source_column'
  }

  #stageOf (f: number): Stage {
    return this.#specs[f].stages[this.#stage[f]]
  }
}
