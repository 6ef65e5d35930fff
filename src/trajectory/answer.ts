// Tawhiri's answer from the flights flown: the request as flown, member 0's stages, metadata and
// warnings, the ensemble's spread, and provenance — every object built in the schema's order, as
// JSON.stringify writes it (RouteSpec.success.builtInOrder).
import {
  type FlightOutcome, type SampleUnit, TRAJECTORY_WARNINGS, type TrajectoryPoint, type TrajectoryRequest,
  type TrajectoryResponse, type TrajectoryWarning, rfc3339
} from '../contract/index.js'
import { samplesProvenance } from '../samples/index.js'
import { AIR_SAMPLE_OPTIONS } from './air.js'
import { landingSpread, type FlightParameters, type Spread } from './ensemble.js'
import { wrapLongitude } from './models.js'
import type { Flight } from './solver.js'
import type { Profile } from './request.js'

const SOLVER = 'rk4_fixed_60s_stage_ends_refined_linear'
const DESCENT_MODELS = {
  nasa: 'tawhiri_drag_1.1045_over_sqrt_nasa_standard_atmosphere_density',
  model: 'tawhiri_drag_1.1045_over_sqrt_model_density'
} as const

/** What the answer is built from, besides the flights. */
export interface FlightFacts {
  profile: Profile
  launchMs: number
  stopMs: number
  launchAltitude: number
  topAltitude: number
  datasetUsed: string
  spread: Spread | undefined
  params: FlightParameters[]
  everyTrack: boolean
  modelDensity: boolean
  /** The air's columns join the surface layer (docs/DESIGN.md §8). */
  surfaceLayer: boolean
  /** When the request began (epoch ms). */
  started: number
}

/** The answer to a request whose flights have been flown. */
export async function flightAnswer (
  req: TrajectoryRequest, flights: Flight[], units: SampleUnit[], f: FlightFacts, completedMs: number
): Promise<TrajectoryResponse> {
  const first = flights[0]
  const warnings: TrajectoryResponse['warnings'] = {}
  const warn = (name: TrajectoryWarning, count: number): void => {
    if (count > 0) warnings[name] = { count, description: TRAJECTORY_WARNINGS[name] }
  }
  warn('altitude_outside_column', first.clamped)
  if (first.end !== 'complete') warn(first.end, 1)
  warn('started_below_model_ground', first.startedBelowGround ? 1 : 0)
  const ensemble = f.spread === undefined ? undefined : await ensembleSummary(flights, f)
  return {
    request: requestEcho(req, f),
    prediction: prediction(first),
    outcome: outcomeOf(first, f.profile),
    metadata: { start_datetime: instant(f.started / 1000), complete_datetime: instant(completedMs / 1000) },
    warnings,
    ...(ensemble !== undefined ? { ensemble } : {}),
    provenance: trajectoryProvenance(units, DESCENT_MODELS[f.modelDensity ? 'model' : 'nasa'], f.surfaceLayer)
  }
}

/**
 * How a flight ended, in the contract's words: a complete flight landed, or its float ended; one
 * whose descent or float began below the model ground landed where it began.
 */
function outcomeOf (f: Flight, profile: Profile): FlightOutcome {
  if (f.end !== 'complete') return f.end
  if (f.startedBelowGround) return 'landed'
  return profile === 'float_profile' ? 'float_ended' : 'landed'
}

/** A flight's stages as Tawhiri names them: a reverse flight's, read back to the ground, is its `descent`. */
export function prediction (f: Flight): TrajectoryResponse['prediction'] {
  return f.stages.map((s) => ({ stage: s.stage === 'reverse' ? 'descent' : s.stage, trajectory: points(s.points) }))
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
    ...(f.surfaceLayer ? { surface_layer: true } : {}),
    version: 1
  }
}

/** Each member's parameters, burst and landing, their landing spread, and every path when asked for. */
async function ensembleSummary (flights: Flight[], { params, everyTrack, profile }: FlightFacts
): Promise<NonNullable<TrajectoryResponse['ensemble']>> {
  const landedLat: number[] = []
  const landedLon: number[] = []
  const members = flights.map((f, m) => {
    const descent = f.stages[1]
    const burst = descent === undefined ? null : points(descent.points.slice(0, 4))[0]
    const outcome = outcomeOf(f, profile)
    const landing = outcome === 'landed' ? lastPoint(f) : null
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
      outcome,
      ...(f.startedBelowGround ? { started_below_model_ground: true as const } : {})
    }
  })
  return {
    members,
    ...(everyTrack ? { member_predictions: await eachInTurns(flights, prediction) } : {}),
    landing: landingSpread(landedLat, landedLon)
  }
}

/** Provenance in the schema's order, with the schema's fields (the answer is written by JSON.stringify). */
function trajectoryProvenance (
  units: SampleUnit[], descentModel: string, surfaceLayer: boolean
): TrajectoryResponse['provenance'] {
  const { model, dataset, attribution, licence_url: licenceUrl, source_url: sourceUrl, processing_version: version,
    ...methods } = samplesProvenance({ ...AIR_SAMPLE_OPTIONS, surfaceLayer })
  const { grid_spacing_degrees: _spacing, ...methodFields } = methods
  return { units, model, dataset, attribution, licence_url: licenceUrl, source_url: sourceUrl,
    processing_version: version, solver: SOLVER, descent_model: descentModel, ...methodFields }
}

/** A flight's instant (epoch seconds) in RFC 3339, to the nearest millisecond. */
export function instant (seconds: number): string {
  return rfc3339(Math.floor(seconds * 1000 + 0.5))
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
