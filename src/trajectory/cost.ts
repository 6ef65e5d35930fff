// What a flight costs before it is flown: an upper bound on its 60 s steps and on the points its
// answer carries, from the request alone (and the launch altitude). The price (request-rate tokens)
// and the per-request bound are both taken from it, so a request's price follows its work: an
// ascent of 0.001 m/s is a flight of months, not one more request.
import { STEP_S } from './models.js'
import type { Stage } from './stages.js'

/**
 * A descent is never slower than its sea-level rate times 1.1045/√ρ with ρ at most this (kg/m³):
 * air at −60 °C and 1 060 hPa is 1.73; the NASA atmosphere at −500 m is 1.29.
 */
const DENSEST_AIR = 1.8
const SLOWEST_DESCENT = 1.1045 / Math.sqrt(DENSEST_AIR)
/** The lowest ground a descent can end on (m MSL; the Dead Sea shore is −430 m). */
const LOWEST_GROUND = -500

/** The most 60 s steps one flight of these stages can take from `launchAltitude` at `launchS`. */
export function flightSteps (launchS: number, launchAltitude: number, stages: readonly Stage[]): number {
  let seconds = 0
  let altitude = launchAltitude
  let t = launchS
  for (const stage of stages) {
    if (stage.kind === 'ascent') {
      const s = Math.max(0, stage.altitude - altitude) / stage.rate
      seconds += s
      t += s
      altitude = stage.altitude
    } else if (stage.kind === 'descent') {
      seconds += Math.max(0, altitude - LOWEST_GROUND) / (stage.seaLevelRate * SLOWEST_DESCENT)
    } else if (stage.kind === 'reverse') {
      seconds += Math.max(0, altitude - LOWEST_GROUND) / stage.rate
    } else {
      seconds += Math.max(0, stage.stop - t)
    }
  }
  // each stage's end adds a point besides its steps
  return Math.ceil(seconds / STEP_S) + stages.length
}

export interface FlightCost {
  /** Steps of every member together: the work. */
  steps: number
  /** Trajectory points the answer holds at most. */
  points: number
}

/**
 * The cost of flights stepped together: all their steps; points of the recorded ones in full and
 * of the others only their stages' ends.
 */
export function flightsCost (flights: ReadonlyArray<{ steps: number, recorded: boolean, stages: number }>): FlightCost {
  let steps = 0
  let points = 0
  for (const f of flights) {
    steps += f.steps
    points += f.recorded ? f.steps + 1 : 2 * f.stages
  }
  return { steps, points }
}

/** What one request may cost at most. */
export interface CostLimits {
  /** 60 s steps, all members together. */
  maxSteps: number
  /** Trajectory points in the answer. */
  maxPoints: number
}

/** The message of a flight beyond the limits: which bound, and what to change. */
export function overLimit (cost: FlightCost, members: number, limits: CostLimits):
{ msg: string, type: 'flight_too_long' | 'answer_too_large' } | null {
  const change = members > 1
    ? 'fewer ensemble members, faster ascent or descent rates, or a lower burst altitude'
    : 'faster ascent or descent rates, a lower burst (or float) altitude, or an earlier stop'
  if (cost.steps > limits.maxSteps) {
    return { type: 'flight_too_long', msg: `The flight${members > 1 ? `s (${members} members)` : ''} could take ` +
      `up to ${cost.steps} steps of 60 s; at most ${limits.maxSteps} are flown per request. Ask for ${change}` }
  }
  if (cost.points > limits.maxPoints) {
    return { type: 'answer_too_large', msg: `The answer could hold up to ${cost.points} trajectory points; at most ` +
      `${limits.maxPoints} are answered per request. Ask for ${change}` +
      (members > 1 ? ', or leave member_trajectories off' : '') }
  }
  return null
}
