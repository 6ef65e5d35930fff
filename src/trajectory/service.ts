// The trajectory predictor (docs/DESIGN.md §7): a Tawhiri request → checks → the launch → the
// flights (one, or an ensemble stepped together) on the samples engine → Tawhiri's answer plus
// provenance and the ensemble's spread. HTTP-free: the route maps its errors to problems.
import {
  type FlightOutcome, type ReverseResponse, rfc3339, TRAJECTORY_WARNINGS, type TrajectoryRequest,
  type TrajectoryResponse
} from '../contract/index.js'
import type { PlanSource, SamplesEngine } from '../samples/index.js'
import { engineAir, UnitsRead } from './air.js'
import { members, type FlightParameters } from './ensemble.js'
import { fly } from './solver.js'
import { flightSteps, flightsCost, overLimit, type CostLimits, type FlightCost } from './cost.js'
import { checkFlight, FlightInputError, issue } from './request.js'
import { checkDataset, launchGround } from './launch.js'
import { flightSpecs } from './profiles.js'
import { flightAnswer } from './answer.js'
import { flyBack, reverseAnswer, type SeenAloft } from './reverse.js'

export interface TrajectoryServiceOptions extends CostLimits {
  engine: SamplesEngine
  source: Pick<PlanSource, 'entriesNear'>
  now?: () => number
}

/** A request checked and costed, ready to fly. */
export interface PreparedFlight {
  /** Upper bounds on the work and the answer's points (within the service's limits). */
  cost: FlightCost
  /** Flies it; an aborted `signal` (the caller left) stops the flight at its next turn. */
  fly: (signal?: AbortSignal) => Promise<TrajectoryResponse>
}

export class TrajectoryService {
  readonly #options: TrajectoryServiceOptions

  constructor (options: TrajectoryServiceOptions) {
    this.#options = options
  }

  /**
   * The model terrain (m MSL, bilinear) at a place and time, as a launch reads it: Tawhiri's
   * elevation helper (/api/ruaumoko/) answered from the same ground the flights land on.
   */
  async terrain (latitude: number, longitude: number, timeMs: number, accountId: string): Promise<number> {
    const air = engineAir({ engine: this.#options.engine, accountId, units: new UnitsRead(), surfaceLayer: false })
    const at = { launch_latitude: latitude, launch_longitude: longitude, launch_datetime: rfc3339(timeMs),
      ascent_rate: 1 }
    return await launchGround(air, at, timeMs, undefined)
  }

  /**
   * reverse_profile (reverse.ts): a balloon seen aloft flown back to the ground; its altitude
   * defaults to the model terrain, as a launch's does. How it ended, and the fork's answer.
   */
  async reverse (seen: Omit<SeenAloft, 'altitude'> & { altitude?: number, run?: number }, accountId: string,
    signal?: AbortSignal): Promise<{ outcome: FlightOutcome, answer: ReverseResponse }> {
    const now = this.#options.now ?? Date.now
    const started = now()
    const { run } = seen
    if (run !== undefined) await checkDataset(this.#options.source, run, seen.timeMs)
    const units = new UnitsRead()
    const air = engineAir({ engine: this.#options.engine, accountId, units, surfaceLayer: false,
      ...(run !== undefined ? { run } : {}) })
    const at = { launch_latitude: seen.latitude, launch_longitude: seen.longitude,
      launch_datetime: rfc3339(seen.timeMs), ascent_rate: seen.ascentRate }
    const ground = await launchGround(air, at, seen.timeMs, run)
    const aloft = { ...seen, altitude: seen.altitude ?? ground }
    if (aloft.altitude < ground) {
      // flown back from underground it would "leave the ground" before it was seen (docs/DESIGN.md §9)
      throw new FlightInputError([issue('launch_altitude', `Must not be below the model ground here ` +
        `(${Math.round(ground * 10) / 10} m MSL; GET /api/ruaumoko/ answers it): a balloon seen aloft is above it`,
      'value_error', aloft.altitude)])
    }
    const flight = await flyBack(aloft, air, this.#options, signal)
    const warnings: ReverseResponse['warnings'] = {}
    if (flight.clamped > 0) {
      const description = TRAJECTORY_WARNINGS.altitude_outside_column
      warnings.altitude_outside_column = { count: flight.clamped, description }
    }
    return { outcome: flight.end === 'complete' ? 'landed' : flight.end,
      answer: reverseAnswer(aloft, flight, units.list(), started, now(), warnings) }
  }

  async predict (req: TrajectoryRequest, accountId: string): Promise<TrajectoryResponse> {
    return await (await this.prepare(req, accountId)).fly()
  }

  /**
   * Checks the request, probes the launch (its place, time and terrain) and bounds the flight's
   * cost; a flight beyond the service's limits is a FlightInputError naming them.
   */
  async prepare (req: TrajectoryRequest, accountId: string): Promise<PreparedFlight> {
    const now = this.#options.now ?? Date.now
    const started = now()
    const checked = checkFlight(req)
    const { profile, launchMs, stopMs, run, top, spread } = checked
    if (run !== undefined) await checkDataset(this.#options.source, run, launchMs)
    const units = new UnitsRead()
    const surfaceLayer = req.surface_layer === true
    const air = engineAir({ engine: this.#options.engine, accountId, units, surfaceLayer,
      ...(run !== undefined ? { run } : {}) })
    const ground = await launchGround(air, req, launchMs, run)
    const datasetUsed = units.list()[0].model_run_at
    const launchAltitude = req.launch_altitude ?? ground
    const topAltitude = req[top] as number
    if (!(topAltitude > launchAltitude)) {
      throw new FlightInputError([issue(top, `Must be above the launch altitude (${launchAltitude} m)`,
        'value_error', topAltitude)])
    }
    const nominal: FlightParameters = {
      ascentRate: req.ascent_rate, burstAltitude: topAltitude, descentRate: req.descent_rate ?? NaN
    }
    const params = spread === undefined ? [nominal] : members(nominal, spread, launchAltitude)
    const everyTrack = req.member_trajectories === true
    const modelDensity = req.descent_density === 'model'
    const specs = flightSpecs({ profile, launchMs, stopMs, latitude: req.launch_latitude,
      longitude: req.launch_longitude, altitude: launchAltitude, modelDensity, everyTrack }, params)
    const cost = flightsCost(specs.map((spec) => ({
      steps: flightSteps(spec.t, spec.altitude, spec.stages), recorded: spec.record, stages: spec.stages.length
    })))
    const over = overLimit(cost, specs.length, this.#options)
    if (over !== null) throw new FlightInputError([issue('', over.msg, over.type)])
    const facts = { profile, launchMs, stopMs, launchAltitude, topAltitude, datasetUsed, spread, params, everyTrack,
      modelDensity, surfaceLayer, started }
    return {
      cost,
      fly: async (signal) =>
        await flightAnswer(req, await fly(specs, air, undefined, signal), units.list(), facts, now())
    }
  }
}
