// The flight solver (docs/DESIGN.md §7): classical RK4 with a fixed 60 s step, many flights
// stepped together so that each RK4 stage is one batched evaluation of the air. It knows
// nothing of GRIB or HTTP: it takes an `Air` (the samples engine in the service, synthetic
// winds in the tests).
import { STEP_S, descentRate, latitudeRate, longitudeRate, nasaDensity, wrapLongitude } from './models.js'

/** What an evaluation of the air answered for one state. */
export const AIR_OK = 0
/** The state lies outside the source's coverage (place or time). */
export const AIR_OUTSIDE = 1
/** The source's column there cannot be used. */
export const AIR_UNUSABLE = 2

/** One batched evaluation: inputs t … alt for `n` states, the outputs filled by the Air. */
export interface AirBatch {
  n: number
  /** Seconds since the epoch. */
  t: Float64Array
  latitude: Float64Array
  /** [0, 360). */
  longitude: Float64Array
  /** Metres, geometric, above mean sea level. */
  altitude: Float64Array
  u: Float64Array
  v: Float64Array
  /** The model terrain (m MSL), bilinear and time-blended. */
  ground: Float64Array
  density: Float64Array
  status: Uint8Array
  /** 1 where the altitude lay outside the column and its nearest level answered. */
  clamped: Uint8Array
}

export type Air = (batch: AirBatch) => void | Promise<void>

export type Stage =
  | { kind: 'ascent', rate: number, altitude: number }
  | { kind: 'descent', seaLevelRate: number, modelDensity: boolean }
  | { kind: 'float', stop: number }

export type StageName = Stage['kind']

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
}

/** Per-flight solver state, in arrays indexed by flight. */
interface State {
  stage: Int32Array
  t: Float64Array
  y: Float64Array // lat, lon, alt × flights
  /** The state a descent step came from (t, lat, lon, alt), kept until the ground check of its end. */
  prev: Float64Array
  /** A descent step's end awaiting its ground check (it is recorded only once above ground). */
  pending: Uint8Array
  /** alt − ground at the last confirmed descent state. */
  above: Float64Array
  /** k1 … k4 (3 each) per flight. */
  k: Float64Array
}

/**
 * The solver gives the event loop a turn once it has held it this long: an evaluation answered
 * from held pieces never waits, so a long flight would otherwise run start to end in one turn.
 */
const YIELD_AFTER_MS = 5

/** Lets other work (requests, probes, timers) run. */
const turn = async (): Promise<void> => { await new Promise((resolve) => setImmediate(resolve)) }

/** Flies every spec to its end; evaluations are batched over the flights still flying. */
export async function fly (specs: FlightSpec[], air: Air, step: number = STEP_S): Promise<Flight[]> {
  const n = specs.length
  const flights: Flight[] = specs.map((s) => ({
    stages: [{ stage: s.stages[0].kind, points: [s.t, s.latitude, wrapLongitude(s.longitude), s.altitude] }],
    end: 'complete',
    clamped: 0
  }))
  const st: State = {
    stage: new Int32Array(n),
    t: new Float64Array(n),
    y: new Float64Array(3 * n),
    prev: new Float64Array(4 * n),
    pending: new Uint8Array(n),
    above: new Float64Array(n),
    k: new Float64Array(12 * n)
  }
  const batch = airBatch(n)
  let active: number[] = []
  specs.forEach((s, f) => {
    st.t[f] = s.t
    st.y[3 * f] = s.latitude
    st.y[3 * f + 1] = wrapLongitude(s.longitude)
    st.y[3 * f + 2] = s.altitude
    active.push(f)
  })

  const record = (f: number, t: number, lat: number, lon: number, alt: number): void => {
    const stage = flights[f].stages[flights[f].stages.length - 1]
    // unrecorded, a stage keeps its start and its newest state (its end, once it has one)
    if (!specs[f].record && stage.points.length > 4) stage.points.length -= 4
    stage.points.push(t, lat, lon, alt)
  }
  const end = (f: number, how: FlightEnd): void => { flights[f].end = how }
  const vertical = (f: number, b: number): number => {
    const stage = specs[f].stages[st.stage[f]]
    if (stage.kind === 'ascent') return stage.rate
    if (stage.kind === 'float') return 0
    const alt = batch.altitude[b]
    return descentRate(stage.seaLevelRate, stage.modelDensity ? batch.density[b] : nasaDensity(alt))
  }
  /** Flight f's k[slot] from evaluation b of the batch just made (counted if it clamped). */
  const setK = (f: number, b: number, slot: number): void => {
    flights[f].clamped += batch.clamped[b]
    const o = 12 * f + 3 * slot
    st.k[o] = latitudeRate(batch.v[b], batch.altitude[b])
    st.k[o + 1] = longitudeRate(batch.u[b], batch.latitude[b], batch.altitude[b])
    st.k[o + 2] = vertical(f, b)
  }
  /** k (1–3) of each flight in `fs` from the evaluation just made; flights that could not be evaluated end. */
  const derive = (fs: number[], slot: number): number[] => {
    const kept: number[] = []
    for (let b = 0; b < fs.length; b++) {
      const f = fs[b]
      if (batch.status[b] !== AIR_OK) {
        end(f, batch.status[b] === AIR_OUTSIDE ? 'left_source_coverage' : 'unusable_source_column')
        continue
      }
      setK(f, b, slot)
      kept.push(f)
    }
    return kept
  }
  /** Evaluates the air for each flight at its state plus `dt` and `scale` × k[slot]. */
  const evaluate = async (fs: number[], dt: number, scale: number, slot: number): Promise<void> => {
    batch.n = fs.length
    if (fs.length === 0) return
    for (let b = 0; b < fs.length; b++) {
      const f = fs[b]
      const o = 12 * f + 3 * slot
      const lat = st.y[3 * f] + (slot < 0 ? 0 : scale * st.k[o])
      const lon = st.y[3 * f + 1] + (slot < 0 ? 0 : scale * st.k[o + 1])
      batch.t[b] = st.t[f] + dt
      batch.latitude[b] = lat
      batch.longitude[b] = wrapLongitude(lon)
      batch.altitude[b] = st.y[3 * f + 2] + (slot < 0 ? 0 : scale * st.k[o + 2])
    }
    await air(batch)
  }

  let held = performance.now()
  while (active.length > 0) {
    if (performance.now() - held > YIELD_AFTER_MS) {
      await turn()
      held = performance.now()
    }
    // k1, at each flight's state; it also answers a descent's ground check of that state
    await evaluate(active, 0, 0, -1)
    const checked: number[] = []
    for (let b = 0; b < active.length; b++) {
      const f = active[b]
      const stage = specs[f].stages[st.stage[f]]
      if (batch.status[b] !== AIR_OK) {
        // a descent end not yet recorded is dropped: the flight ends at the last recorded state
        end(f, batch.status[b] === AIR_OUTSIDE ? 'left_source_coverage' : 'unusable_source_column')
        continue
      }
      if (stage.kind === 'descent') {
        const above = st.y[3 * f + 2] - batch.ground[b]
        if (st.pending[f] === 1) {
          st.pending[f] = 0
          if (above <= 0) {
            const p = 4 * f
            const frac = st.above[f] / (st.above[f] - above)
            const [t, lat, lon, alt] = between(st.prev[p], st.prev[p + 1], st.prev[p + 2], st.prev[p + 3],
              st.y[3 * f], st.y[3 * f + 1], st.y[3 * f + 2], frac, step)
            record(f, t, lat, lon, alt)
            continue
          }
          record(f, st.t[f], st.y[3 * f], st.y[3 * f + 1], st.y[3 * f + 2])
        }
        st.above[f] = above
      }
      checked.push(b)
    }
    // k1 from the same evaluation, for the flights that go on (indices into the batch just made)
    let flying: number[] = []
    for (const b of checked) {
      setK(active[b], b, 0)
      flying.push(active[b])
    }
    await evaluate(flying, step / 2, step / 2, 0)
    flying = derive(flying, 1)
    await evaluate(flying, step / 2, step / 2, 1)
    flying = derive(flying, 2)
    await evaluate(flying, step, step, 2)
    flying = derive(flying, 3)

    active = []
    for (const f of flying) {
      const o = 12 * f
      const t0 = st.t[f]
      const lat0 = st.y[3 * f]
      const lon0 = st.y[3 * f + 1]
      const alt0 = st.y[3 * f + 2]
      const k = st.k
      const t1 = t0 + step
      const lat1 = lat0 + (step / 6) * (k[o] + 2 * k[o + 3] + 2 * k[o + 6] + k[o + 9])
      const lon1 = wrapLongitude(lon0 + (step / 6) * (k[o + 1] + 2 * k[o + 4] + 2 * k[o + 7] + k[o + 10]))
      const alt1 = alt0 + (step / 6) * (k[o + 2] + 2 * k[o + 5] + 2 * k[o + 8] + k[o + 11])
      const stage = specs[f].stages[st.stage[f]]
      let ended: number[] | null = null
      if (stage.kind === 'ascent' && alt1 >= stage.altitude) {
        ended = between(t0, lat0, lon0, alt0, lat1, lon1, alt1, (stage.altitude - alt0) / (alt1 - alt0), step)
        ended[3] = stage.altitude
      } else if (stage.kind === 'float' && t1 >= stage.stop) {
        ended = between(t0, lat0, lon0, alt0, lat1, lon1, alt1, (stage.stop - t0) / step, step)
      }
      if (ended !== null) {
        record(f, ended[0], ended[1], ended[2], ended[3])
        if (startNext(f, ended)) active.push(f)
        continue
      }
      if (stage.kind === 'descent') {
        // recorded once the next evaluation has found it above the ground
        st.prev.set([t0, lat0, lon0, alt0], 4 * f)
        st.pending[f] = 1
      } else {
        record(f, t1, lat1, lon1, alt1)
      }
      st.t[f] = t1
      st.y[3 * f] = lat1
      st.y[3 * f + 1] = lon1
      st.y[3 * f + 2] = alt1
      active.push(f)
    }
  }
  return flights

  /** The next stage starts where the last ended; false when the flight is over. */
  function startNext (f: number, at: number[]): boolean {
    const next = st.stage[f] + 1
    if (next >= specs[f].stages.length) return false
    st.stage[f] = next
    const stage = specs[f].stages[next]
    flights[f].stages.push({ stage: stage.kind, points: [at[0], at[1], at[2], at[3]] })
    st.t[f] = at[0]
    st.y[3 * f] = at[1]
    st.y[3 * f + 1] = at[2]
    st.y[3 * f + 2] = at[3]
    st.pending[f] = 0
    // a float whose stop time has come already is its start alone
    return !(stage.kind === 'float' && at[0] >= stage.stop)
  }
}

/** The state a fraction of the way from one state to the next (longitude along the short way round). */
function between (
  t0: number, lat0: number, lon0: number, alt0: number, lat1: number, lon1: number, alt1: number,
  frac: number, step: number
): number[] {
  const dlon = ((lon1 - lon0 + 540) % 360) - 180
  return [t0 + frac * step, lat0 + frac * (lat1 - lat0), wrapLongitude(lon0 + frac * dlon), alt0 + frac * (alt1 - alt0)]
}

export function airBatch (n: number): AirBatch {
  return {
    n: 0,
    t: new Float64Array(n),
    latitude: new Float64Array(n),
    longitude: new Float64Array(n),
    altitude: new Float64Array(n),
    u: new Float64Array(n),
    v: new Float64Array(n),
    ground: new Float64Array(n),
    density: new Float64Array(n),
    status: new Uint8Array(n),
    clamped: new Uint8Array(n)
  }
}
