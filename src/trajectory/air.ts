// The solver's air from the samples engine (docs/DESIGN.md §7): every evaluation is one batched
// samples call in one engine session per flight, `linear`, heights MSL, out_of_column
// nearest_level — the same interpolator as POST /v1/atmosphere/samples, no second one. The units
// it read are gathered for provenance. Most evaluations read only pieces the session already
// holds and are answered at once (src/samples/session.ts), the rest go through the whole engine.
import { type SampleUnit, SAMPLE_FIELDS } from '../contract/index.js'
import {
  type HeldSamples, type SamplesEngine, type SamplesResult, OK, OUT_GROUND, OUTSIDE_SOURCE, type SampleOptions,
  type SamplePoints
} from '../samples/index.js'
import { AIR_OK, AIR_OUTSIDE, AIR_UNUSABLE, type Air, type AirBatch } from './air-batch.js'

const U = SAMPLE_FIELDS.indexOf('wind_u_ms')
const V = SAMPLE_FIELDS.indexOf('wind_v_ms')
const DENSITY = SAMPLE_FIELDS.indexOf('density_kg_m3')

/** The source units a flight read, each (run, step) once with every piece read for it. */
export class UnitsRead {
  readonly #units = new Map<string, SampleUnit>()
  readonly #seen = new WeakSet<object>()

  /** The units of a samples result, described only when it read a piece not seen before. */
  addResult (result: Pick<SamplesResult, 'pieces' | 'units'>): void {
    let fresh = false
    for (const piece of result.pieces) {
      if (piece === null || this.#seen.has(piece)) continue
      this.#seen.add(piece)
      fresh = true
    }
    if (fresh) this.add(result.units)
  }

  add (units: readonly SampleUnit[]): void {
    for (const u of units) {
      const key = `${u.model_run_at}/${u.forecast_hour}`
      const seen = this.#units.get(key)
      if (seen === undefined) {
        this.#units.set(key, { ...u, sources: [...u.sources] })
        continue
      }
      for (const s of u.sources) {
        if (!seen.sources.some((k) => k.unit_key === s.unit_key)) seen.sources.push(s)
      }
      if (seen.sources.length > 1) {
        seen.source_sha256 = null
        seen.retrieved_at = null
      }
    }
  }

  /** By run, then forecast hour. */
  list (): SampleUnit[] {
    return [...this.#units.values()].sort((a, b) =>
      a.model_run_at.localeCompare(b.model_run_at) || a.forecast_hour - b.forecast_hour)
  }
}

export interface EngineAirOptions {
  engine: SamplesEngine
  accountId: string
  /** A pinned model run (epoch ms). */
  run?: number
  units: UnitsRead
  /** Columns join the surface layer (docs/DESIGN.md §8). */
  surfaceLayer?: boolean
}

/** How a flight reads the air: the samples engine's options (answer.ts gives them to provenance). */
export const AIR_SAMPLE_OPTIONS: SampleOptions = {
  interpolation: 'linear',
  altitudeReference: 'msl',
  clamp: true,
  fields: ['wind_u_ms', 'wind_v_ms', 'density_kg_m3']
}

export function engineAir (o: EngineAirOptions): Air {
  const options: SampleOptions = { ...AIR_SAMPLE_OPTIONS, ...(o.run !== undefined ? { run: o.run } : {}),
    ...(o.surfaceLayer === true ? { surfaceLayer: true } : {}) }
  const session = o.engine.session(options, o.accountId)
  // the batch never grows: its milliseconds and (model) grounds are allocated once, and the points
  // over them made again only when the batch's size changes
  let time = new Float64Array(0)
  let ground = new Float64Array(0)
  let points: SamplePoints | undefined
  let pointsOf: AirBatch | undefined
  const answer = (batch: AirBatch, r: HeldSamples): void => {
    const n = batch.n
    for (let b = 0; b < n; b++) {
      const s = r.status[b]
      batch.status[b] = s === OK ? AIR_OK : s === OUTSIDE_SOURCE ? AIR_OUTSIDE : AIR_UNUSABLE
      batch.clamped[b] = r.clamped[b]
      batch.u[b] = r.out[U * n + b]
      batch.v[b] = r.out[V * n + b]
      batch.density[b] = r.out[DENSITY * n + b]
      batch.ground[b] = r.out[OUT_GROUND * n + b]
    }
  }
  return (batch: AirBatch): void | Promise<void> => {
    const n = batch.n
    if (n === 0) return
    if (time.length < batch.t.length) {
      time = new Float64Array(batch.t.length)
      ground = new Float64Array(batch.t.length).fill(NaN)
      pointsOf = undefined
    }
    for (let b = 0; b < n; b++) time[b] = batch.t[b] * 1000
    if (points?.n !== n || pointsOf !== batch) {
      pointsOf = batch
      points = {
        n,
        latitude: batch.latitude.subarray(0, n),
        longitude: batch.longitude.subarray(0, n),
        altitude: batch.altitude.subarray(0, n),
        time: time.subarray(0, n),
        ground: ground.subarray(0, n)
      }
    }
    // most evaluations read only pieces an earlier one loaded (and listed for the provenance)
    const held = session.sampleHeld(points)
    if (held !== null) {
      answer(batch, held)
      return
    }
    const loading = points
    return (async () => {
      const r = await session.sample(loading)
      o.units.addResult(r)
      answer(batch, r)
    })()
  }
}
