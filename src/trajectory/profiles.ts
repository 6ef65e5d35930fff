// The flight profiles as stage lists, like Tawhiri's standard_profile and float_profile: each
// member's flight from the launch, its stages in order.
import type { FlightParameters } from './ensemble.js'
import type { FlightSpec } from './solver.js'
import type { Stage } from './stages.js'
import type { Profile } from './request.js'

/** Ascent to the burst, then a drag descent to the ground. */
export function standardProfile (p: FlightParameters, modelDensity: boolean): Stage[] {
  return [{ kind: 'ascent', rate: p.ascentRate, altitude: p.burstAltitude },
    { kind: 'descent', seaLevelRate: p.descentRate, modelDensity }]
}

/** Ascent to the float altitude, then a float until the stop time (epoch s). */
export function floatProfile (p: FlightParameters, stopS: number): Stage[] {
  return [{ kind: 'ascent', rate: p.ascentRate, altitude: p.burstAltitude }, { kind: 'float', stop: stopS }]
}

export interface Launch {
  profile: Profile
  /** Epoch ms. */
  launchMs: number
  stopMs: number
  latitude: number
  longitude: number
  /** m MSL. */
  altitude: number
  modelDensity: boolean
  /** Every member's path kept (else member 0's only). */
  everyTrack: boolean
}

/** One flight per member, all from the launch. */
export function flightSpecs (launch: Launch, params: FlightParameters[]): FlightSpec[] {
  return params.map((p, m) => ({
    t: launch.launchMs / 1000,
    latitude: launch.latitude,
    longitude: launch.longitude,
    altitude: launch.altitude,
    record: m === 0 || launch.everyTrack,
    stages: launch.profile === 'standard_profile'
      ? standardProfile(p, launch.modelDensity)
      : floatProfile(p, launch.stopMs / 1000)
  }))
}
