// The trajectory predictor (docs/DESIGN.md §7): a Tawhiri request → the flights (one, or an
// ensemble stepped together) on the samples engine → Tawhiri's answer plus provenance and the
// ensemble's spread. HTTP-free: the route maps its errors to problems.
import {
  type ValidationErrorItem, type SampleUnit, TRAJECTORY_WARNINGS, type TrajectoryPoint, type TrajectoryRequest,
  type TrajectoryResponse, type TrajectoryWarning
} from '../contract/index.js'
import { type SamplesEngine, type PlanSource, samplesProvenance } from '../samples/index.js'
import { HOUR_MS, SourceError, isoTime } from '../source/index.js'
import { engineAir, UnitsRead } from './air.js'
import { landingSpread, members, type FlightParameters } from './ensemble.js'
import { wrapLongitude } from './models.js'
import { AIR_OK, AIR_OUTSIDE, airBatch, fly, type Flight, type FlightSpec, type Stage } from './solver.js'
import { flightSteps, flightsCost, type FlightCost } from './cost.js'

/** A request that is well-formed but does not describe a flight (400, `errors` naming the fields). */
export class FlightInputError extends Error {
  override readonly name = 'FlightInputError'
  constructor (readonly errors: ValidationErrorItem[]) {
    super(errors.map((e) => e.loc.length === 0 ? e.msg : `${e.loc.join('.')}: ${e.msg}`).join('; '))
  }
}

export interface TrajectoryServiceOptions {
  engine: SamplesEngine
  source: Pick<PlanSource, 'entriesNear'>
  now?: () => number
  /** The most 60 s steps (all members together) one request may fly. */
  maxSteps: number
  /** The most trajectory points one answer may carry. */
  maxPoints: number
}

/** A request checked and costed, ready to fly. */
export interface PreparedFlight {
  /** Upper bounds on the work and the answer's points (within the service's limits). */
  cost: FlightCost
  fly: () => Promise<TrajectoryResponse>
}

const SOLVER = 'rk4_fixed_60s_stage_ends_refined_linear'
const DESCENT_MODELS = {
  nasa: 'tawhiri_drag_1.1045_over_sqrt_nasa_standard_atmosphere_density',
  model: 'tawhiri_drag_1.1045_over_sqrt_model_density'
} as const

/** An error item located by field name only (none: the whole request): the route puts it under `body` or `query`. */
function issue (field: string, msg: string, type: string, input?: unknown): ValidationErrorItem {
  return { loc: field === '' ? [] : [field], msg, type, ...(input !== undefined ? { input } : {}) }
}

function prediction (f: Flight): TrajectoryResponse['prediction'] {
  return f.stages.map((s) => ({ stage: s.stage, trajectory: points(s.points) }))
}

/** The request as flown: every field, defaults filled, in the schema's order. */
function requestEcho (req: TrajectoryRequest, f: FlightFacts): TrajectoryResponse['request'] {
  const { profile, spread } = f
  return {
    profile,
    launch_latitude: req.launch_latitude,
    launch_longitude: wrapLongitude(req.launch_longitude),
    launch_datetime: instant(f.launchMs / 1000),
    launch_altitude: f.launchAltitude,
    ascent_rate: req.ascent_rate,
    ...(profile === 'standard_profile'
      ? { burst_altitude: f.topAltitude, descent_rate: req.descent_rate }
      : { float_altitude: f.topAltitude, stop_datetime: instant(f.stopMs / 1000) }),
    descent_density: req.descent_density ?? 'nasa',
    dataset: f.datasetUsed,
    ...(spread !== undefined
      ? {
          ensemble: {
            members: spread.members,
            ascent_rate_sd: spread.ascentRateSd,
            burst_altitude_sd: spread.burstAltitudeSd,
            descent_rate_sd: spread.descentRateSd,
            seed: spread.seed
          },
          member_trajectories: f.everyTrack
        }
      : {}),
    version: 1
  }
}

/** Each member's parameters, burst and landing, their landing spread, and every path when asked for. */
async function ensembleSummary (flights: Flight[], params: FlightParameters[], everyTrack: boolean
): Promise<NonNullable<TrajectoryResponse['ensemble']>> {
  const landedLat: number[] = []
  const landedLon: number[] = []
  const members = flights.map((f, m) => {
    const descent = f.stages[1]
    const burst = descent === undefined ? null : points(descent.points.slice(0, 4))[0]
    const landed = f.end === 'complete'
    const landing = landed ? lastPoint(f) : null
    if (landing !== null) {
      landedLat.push(landing.latitude)
      landedLon.push(landing.longitude)
    }
    return {
      ascent_rate: params[m].ascentRate,
      burst_altitude: params[m].burstAltitude,
      descent_rate: params[m].descentRate,
      burst,
      landing,
      end: landed ? 'landed' as const : f.end as 'left_source_coverage' | 'unusable_source_column'
    }
  })
  return {
    members,
    ...(everyTrack ? { member_predictions: await eachInTurns(flights, prediction) } : {}),
    landing: landingSpread(landedLat, landedLon)
  }
}

/** Provenance in the schema's order, with the schema's fields (the answer is written by JSON.stringify). */
function trajectoryProvenance (units: SampleUnit[], descentModel: string): TrajectoryResponse['provenance'] {
  const { model, dataset, attribution, licence_url: licenceUrl, source_url: sourceUrl, processing_version: version,
    ...methods } = samplesProvenance({ interpolation: 'linear', altitudeReference: 'msl', clamp: true, fields: [] })
  const { grid_spacing_degrees: _spacing, ...methodFields } = methods
  return { units, model, dataset, attribution, licence_url: licenceUrl, source_url: sourceUrl,
    processing_version: version, solver: SOLVER, descent_model: descentModel, ...methodFields }
}

/** What the answer is built from, besides the flights. */
interface FlightFacts {
  profile: NonNullable<TrajectoryRequest['profile']>
  launchMs: number
  stopMs: number
  launchAltitude: number
  topAltitude: number
  datasetUsed: string
  spread: ReturnType<typeof spreadOf>
  params: FlightParameters[]
  everyTrack: boolean
  modelDensity: boolean
  started: number
}

function spreadOf (req: TrajectoryRequest): {
  members: number, ascentRateSd: number, burstAltitudeSd: number, descentRateSd: number, seed: number
} | undefined {
  return req.ensemble === undefined ? undefined : {
    members: req.ensemble.members,
    ascentRateSd: req.ensemble.ascent_rate_sd ?? 0,
    burstAltitudeSd: req.ensemble.burst_altitude_sd ?? 0,
    descentRateSd: req.ensemble.descent_rate_sd ?? 0,
    seed: req.ensemble.seed ?? 0
  }
}

/** UTC RFC 3339, with milliseconds only when the instant (to the nearest ms) is not a whole second. */
export function instant (seconds: number): string {
  const ms = Math.floor(seconds * 1000 + 0.5)
  return new Date(ms).toISOString().replace('.000Z', 'Z')
}

function points (flat: readonly number[]): TrajectoryPoint[] {
  const out: TrajectoryPoint[] = []
  for (let k = 0; k < flat.length; k += 4) {
    out.push({ datetime: instant(flat[k]), latitude: flat[k + 1], longitude: flat[k + 2], altitude: flat[k + 3] })
  }
  return out
}

/** `fn` of each item, giving the event loop a turn every so often (an answer may hold 250 000 points). */
async function eachInTurns<T, R> (items: readonly T[], fn: (item: T) => R): Promise<R[]> {
  const out: R[] = []
  let held = performance.now()
  for (const item of items) {
    out.push(fn(item))
    if (performance.now() - held > 5) {
      await new Promise((resolve) => setImmediate(resolve))
      held = performance.now()
    }
  }
  return out
}

function lastPoint (flight: Flight): TrajectoryPoint {
  const stage = flight.stages[flight.stages.length - 1].points
  return points(stage.slice(stage.length - 4))[0]
}

export class TrajectoryService {
  readonly #o: TrajectoryServiceOptions

  constructor (options: TrajectoryServiceOptions) {
    this.#o = options
  }

  async predict (req: TrajectoryRequest, accountId: string): Promise<TrajectoryResponse> {
    return await (await this.prepare(req, accountId)).fly()
  }

  /**
   * Checks the request, probes the launch (its place, time and terrain) and bounds the flight's
   * cost; a flight beyond the service's limits is a FlightInputError naming them.
   */
  async prepare (req: TrajectoryRequest, accountId: string): Promise<PreparedFlight> {
    const now = this.#o.now ?? Date.now
    const started = now()
    const profile = req.profile ?? 'standard_profile'
    const launchMs = Date.parse(req.launch_datetime)
    const errors: ValidationErrorItem[] = []
    const need = (field: keyof TrajectoryRequest): void => {
      if (req[field] === undefined) errors.push(issue(field, `Field required for the ${profile}`, 'missing'))
    }
    let stopMs = NaN
    if (profile === 'standard_profile') {
      need('burst_altitude')
      need('descent_rate')
    } else {
      need('float_altitude')
      need('stop_datetime')
      if (req.stop_datetime !== undefined) {
        stopMs = Date.parse(req.stop_datetime)
        if (!(stopMs > launchMs)) {
          errors.push(issue('stop_datetime', 'The stop time must be after the launch', 'value_error',
            req.stop_datetime))
        }
      }
      if (req.ensemble !== undefined) {
        errors.push(issue('ensemble', 'Ensembles perturb the standard profile (ascent rate, burst altitude, descent ' +
          'rate); the float profile has none', 'value_error'))
      }
    }
    if (errors.length > 0) throw new FlightInputError(errors)

    const run = req.dataset === undefined ? undefined : Date.parse(req.dataset)
    if (run !== undefined) await this.#checkDataset(run, launchMs)
    const units = new UnitsRead()
    const air = engineAir({ engine: this.#o.engine, accountId, units, ...(run !== undefined ? { run } : {}) })

    // the launch: inside the source? and its terrain, the default launch altitude
    const launch = airBatch(1)
    launch.n = 1
    launch.t[0] = launchMs / 1000
    launch.latitude[0] = req.launch_latitude
    launch.longitude[0] = wrapLongitude(req.launch_longitude)
    launch.altitude[0] = req.launch_altitude ?? 0
    await air(launch)
    if (launch.status[0] !== AIR_OK) {
      const where = `(${req.launch_latitude}, ${req.launch_longitude}) at ${req.launch_datetime}`
      throw launch.status[0] === AIR_OUTSIDE
        ? new SourceError('outside_source_coverage', { detail: `The launch ${where} lies outside the source's ` +
          'coverage' + (run !== undefined ? ` for dataset ${isoTime(run)}` : '') + '.' })
        : new SourceError('unusable_source_column', { detail: `The source's columns at the launch ${where} cannot ` +
          'be used.' })
    }
    const datasetUsed = units.list()[0].model_run_at
    const launchAltitude = req.launch_altitude ?? launch.ground[0]
    const top = profile === 'standard_profile' ? 'burst_altitude' : 'float_altitude'
    const topAltitude = req[top] as number
    if (!(topAltitude > launchAltitude)) {
      throw new FlightInputError([issue(top, `Must be above the launch altitude (${launchAltitude} m)`,
        'value_error', topAltitude)])
    }

    const nominal: FlightParameters = {
      ascentRate: req.ascent_rate, burstAltitude: topAltitude, descentRate: req.descent_rate ?? NaN
    }
    const spread = spreadOf(req)
    const params = spread === undefined ? [nominal] : members(nominal, spread, launchAltitude)
    const everyTrack = req.member_trajectories === true
    const modelDensity = req.descent_density === 'model'
    const specs: FlightSpec[] = params.map((p, m) => ({
      t: launchMs / 1000,
      latitude: req.launch_latitude,
      longitude: req.launch_longitude,
      altitude: launchAltitude,
      record: m === 0 || everyTrack,
      stages: profile === 'standard_profile'
        ? [{ kind: 'ascent', rate: p.ascentRate, altitude: p.burstAltitude },
            { kind: 'descent', seaLevelRate: p.descentRate, modelDensity }] satisfies Stage[]
        : [{ kind: 'ascent', rate: p.ascentRate, altitude: p.burstAltitude },
            { kind: 'float', stop: stopMs / 1000 }] satisfies Stage[]
    }))
    const cost = flightsCost(specs.map((spec) => ({
      steps: flightSteps(spec.t, spec.altitude, spec.stages), recorded: spec.record, stages: spec.stages.length
    })))
    this.#checkCost(cost, specs.length)
    return { cost, fly: async () => await this.#answer(req, specs, air, units, { profile, launchMs, stopMs,
      launchAltitude, topAltitude, datasetUsed, spread, params, everyTrack, modelDensity, started }) }
  }

  /** A flight whose bound exceeds the limits is refused before anything is flown. */
  #checkCost (cost: FlightCost, members: number): void {
    const { maxSteps, maxPoints } = this.#o
    const change = members > 1
      ? 'fewer ensemble members, faster ascent or descent rates, or a lower burst altitude'
      : 'faster ascent or descent rates, a lower burst (or float) altitude, or an earlier stop'
    if (cost.steps > maxSteps) {
      throw new FlightInputError([issue('', `The flight${members > 1 ? `s (${members} members)` : ''} could take ` +
        `up to ${cost.steps} steps of 60 s; at most ${maxSteps} are flown per request. Ask for ${change}`,
      'flight_too_long')])
    }
    if (cost.points > maxPoints) {
      throw new FlightInputError([issue('', `The answer could hold up to ${cost.points} trajectory points; at most ` +
        `${maxPoints} are answered per request. Ask for ${change}` +
        (members > 1 ? ', or leave member_trajectories off' : ''), 'answer_too_large')])
    }
  }

  async #answer (req: TrajectoryRequest, specs: FlightSpec[], air: ReturnType<typeof engineAir>, units: UnitsRead,
    f: FlightFacts): Promise<TrajectoryResponse> {
    const now = this.#o.now ?? Date.now
    const flights = await fly(specs, air)
    const first = flights[0]
    const warnings: TrajectoryResponse['warnings'] = {}
    const warn = (name: TrajectoryWarning, count: number): void => {
      if (count > 0) warnings[name] = { count, description: TRAJECTORY_WARNINGS[name] }
    }
    warn('altitude_outside_column', first.clamped)
    if (first.end !== 'complete') warn(first.end, 1)
    const ensemble = f.spread === undefined ? undefined : await ensembleSummary(flights, f.params, f.everyTrack)
    // built in the schema's order: JSON.stringify writes the answer
    return {
      request: requestEcho(req, f),
      prediction: prediction(first),
      metadata: { start_datetime: instant(f.started / 1000), complete_datetime: instant(now() / 1000) },
      warnings,
      ...(ensemble !== undefined ? { ensemble } : {}),
      provenance: trajectoryProvenance(units.list(), DESCENT_MODELS[f.modelDensity ? 'model' : 'nasa'])
    }
  }

  /** A pinned run must be one the source holds with data near the launch. */
  async #checkDataset (run: number, launchMs: number): Promise<void> {
    const hour = Math.floor(launchMs / HOUR_MS) * HOUR_MS
    const entries = await this.#o.source.entriesNear([hour])
    if (entries.some((e) => e.run === run)) return
    const runs = [...new Set(entries.map((e) => e.run))].sort((a, b) => b - a).map(isoTime)
    throw new SourceError('outside_source_coverage', {
      detail: `dataset ${isoTime(run)}: the source holds no such model run with data near the launch time` +
        (runs.length > 0 ? `; runs it holds there: ${runs.join(', ')}` : '') + '.'
    })
  }
}
