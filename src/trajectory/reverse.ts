// reverse_profile as the SondeHub fork defines it (models.reverse_profile, solved with dt = −60 s):
// from a balloon seen aloft and its ascent rate, back in time to where it left the ground — an
// estimate of its launch site. The same solver, air and stage rules as every flight, stepped
// backwards: one `reverse` stage (stages.ts) whose altitude falls, read back in time, to the model
// ground. Answered only on the Tawhiri paths, in the fork's shape.
import type { ReverseResponse, SampleUnit } from '../contract/index.js'
import { instant, prediction } from './answer.js'
import { flightSteps, flightsCost, overLimit, type CostLimits } from './cost.js'
import { FlightInputError, issue } from './request.js'
import { STEP_S, wrapLongitude } from './models.js'
import { fly, type Flight } from './solver.js'

/** Where a balloon is seen, and how fast it rises. */
export interface SeenAloft {
  latitude: number
  longitude: number
  /** m MSL. */
  altitude: number
  /** Epoch ms. */
  timeMs: number
  /** m/s, > 0. */
  ascentRate: number
}

/** Flies a balloon seen aloft back to the ground; a FlightInputError when that is beyond the limits. */
export async function flyBack (seen: SeenAloft, air: Parameters<typeof fly>[1], limits: CostLimits,
  signal?: AbortSignal): Promise<Flight> {
  const spec = { t: seen.timeMs / 1000, latitude: seen.latitude, longitude: seen.longitude, altitude: seen.altitude,
    record: true, stages: [{ kind: 'reverse' as const, rate: seen.ascentRate }] }
  const cost = flightsCost([{ steps: flightSteps(spec.t, spec.altitude, spec.stages), recorded: true, stages: 1 }])
  const over = overLimit(cost, 1, limits)
  if (over !== null) throw new FlightInputError([issue('', over.msg, over.type)])
  const [flight] = await fly([spec], air, -STEP_S, signal)
  return flight
}

/** The fork's answer: its request echo, a one-point ascent, the descent read back, the launch estimate. */
export function reverseAnswer (
  seen: SeenAloft, flight: Flight, units: SampleUnit[], startedMs: number, completedMs: number,
  warnings: ReverseResponse['warnings']
): ReverseResponse {
  const descent = prediction(flight)[0]
  const start = descent.trajectory[0]
  const launch = descent.trajectory[descent.trajectory.length - 1]
  return {
    request: {
      profile: 'reverse_profile',
      launch_latitude: seen.latitude,
      launch_longitude: wrapLongitude(seen.longitude),
      launch_datetime: instant(seen.timeMs / 1000),
      launch_altitude: seen.altitude,
      ascent_rate: seen.ascentRate,
      dataset: units[0].model_run_at,
      version: 1
    },
    prediction: [{ stage: 'ascent', trajectory: [start] }, { stage: 'descent', trajectory: descent.trajectory }],
    launch_estimate: { latitude: launch.latitude, longitude: launch.longitude, altitude: launch.altitude,
      datetime: instant(seen.timeMs / 1000) },
    metadata: { start_datetime: instant(startedMs / 1000), complete_datetime: instant(completedMs / 1000) },
    warnings
  }
}
