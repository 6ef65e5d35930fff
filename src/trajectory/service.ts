// The trajectory predictor (docs/DESIGN.md §7): a Tawhiri request → the flights (one, or an
// ensemble stepped together) on the samples engine → Tawhiri's answer plus provenance and the
// ensemble's spread. HTTP-free: the route maps its errors to problems.
import type { ValidationErrorItem } from '../contract/schemas.js'
import {
  TRAJECTORY_WARNINGS, type TrajectoryPoint, type TrajectoryRequest, type TrajectoryResponse, type TrajectoryWarning
} from '../contract/trajectory.js'
import type { SamplesEngine } from '../samples/engine.js'
import type { PlanSource } from '../samples/plan.js'
import { samplesProvenance } from '../samples/provenance.js'
import { HOUR_MS, SourceError, isoTime } from '../source/index.js'
import { engineAir, UnitsRead } from './air.js'
import { landingSpread, members, type FlightParameters } from './ensemble.js'
import { wrapLongitude } from './models.js'
import { AIR_OK, AIR_OUTSIDE, airBatch, fly, type Flight, type FlightSpec, type Stage } from './solver.js'

/** A request that is well-formed but does not describe a flight (400, `errors` naming the fields). */
export class FlightInputError extends Error {
  override readonly name = 'FlightInputError'
  constructor (readonly errors: ValidationErrorItem[]) {
    super(errors.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; '))
  }
}

export interface TrajectoryServiceOptions {
  engine: SamplesEngine
  source: Pick<PlanSource, 'entriesNear'>
  now?: () => number
}

const SOLVER = 'rk4_fixed_60s_stage_ends_refined_linear'
const DESCENT_MODELS = {
  nasa: 'tawhiri_drag_1.1045_over_sqrt_nasa_standard_atmosphere_density',
  model: 'tawhiri_drag_1.1045_over_sqrt_model_density'
} as const

/** An error item located by field name only: the route puts it under `body` or `query`. */
function issue (field: string, msg: string, type: string, input?: unknown): ValidationErrorItem {
  return { loc: [field], msg, type, ...(input !== undefined ? { input } : {}) }
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
    const spread = req.ensemble === undefined ? undefined : {
      members: req.ensemble.members,
      ascentRateSd: req.ensemble.ascent_rate_sd ?? 0,
      burstAltitudeSd: req.ensemble.burst_altitude_sd ?? 0,
      descentRateSd: req.ensemble.descent_rate_sd ?? 0,
      seed: req.ensemble.seed ?? 0
    }
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
    const flights = await fly(specs, air)
    const first = flights[0]

    const warnings: TrajectoryResponse['warnings'] = {}
    const warn = (name: TrajectoryWarning, count: number): void => {
      if (count > 0) warnings[name] = { count, description: TRAJECTORY_WARNINGS[name] }
    }
    warn('altitude_outside_column', first.clamped)
    if (first.end !== 'complete') warn(first.end, 1)

    const prediction = (f: Flight): TrajectoryResponse['prediction'] =>
      f.stages.map((s) => ({ stage: s.stage, trajectory: points(s.points) }))
    const response: TrajectoryResponse = {
      request: {
        profile,
        launch_latitude: req.launch_latitude,
        launch_longitude: wrapLongitude(req.launch_longitude),
        launch_datetime: instant(launchMs / 1000),
        launch_altitude: launchAltitude,
        ascent_rate: req.ascent_rate,
        ...(profile === 'standard_profile'
          ? { burst_altitude: topAltitude, descent_rate: req.descent_rate }
          : { float_altitude: topAltitude, stop_datetime: instant(stopMs / 1000) }),
        descent_density: req.descent_density ?? 'nasa',
        dataset: datasetUsed,
        ...(spread !== undefined
          ? {
              ensemble: {
                members: spread.members,
                ascent_rate_sd: spread.ascentRateSd,
                burst_altitude_sd: spread.burstAltitudeSd,
                descent_rate_sd: spread.descentRateSd,
                seed: spread.seed
              },
              member_trajectories: everyTrack
            }
          : {}),
        version: 1
      },
      prediction: prediction(first),
      metadata: { start_datetime: '', complete_datetime: '' },
      warnings,
      provenance: {
        units: units.list(),
        ...samplesProvenance({ interpolation: 'linear', altitudeReference: 'msl', clamp: true, fields: [] }),
        solver: SOLVER,
        descent_model: DESCENT_MODELS[modelDensity ? 'model' : 'nasa']
      }
    }
    if (spread !== undefined) {
      const landedLat: number[] = []
      const landedLon: number[] = []
      const list = flights.map((f, m) => {
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
      response.ensemble = {
        members: list,
        ...(everyTrack ? { member_predictions: flights.map(prediction) } : {}),
        landing: landingSpread(landedLat, landedLon)
      }
    }
    response.metadata = { start_datetime: instant(started / 1000), complete_datetime: instant(now() / 1000) }
    return response
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
