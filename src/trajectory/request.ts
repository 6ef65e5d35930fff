// A Tawhiri request checked beyond its schema: what its profile needs, its times parsed, its
// ensemble spread with defaults. Errors name the field; the route puts them under body or query.
import type { TrajectoryRequest, ValidationErrorItem } from '../contract/index.js'
import type { Spread } from './ensemble.js'

/** A request that is well-formed but does not describe a flight (400, `errors` naming the fields). */
export class FlightInputError extends Error {
  override readonly name = 'FlightInputError'
  constructor (readonly errors: ValidationErrorItem[]) {
    super(errors.map((e) => e.loc.length === 0 ? e.msg : `${e.loc.join('.')}: ${e.msg}`).join('; '))
  }
}

/** An error item located by field name only (none: the whole request): the route puts it under `body` or `query`. */
export function issue (field: string, msg: string, type: string, input?: unknown): ValidationErrorItem {
  return { loc: field === '' ? [] : [field], msg, type, ...(input !== undefined ? { input } : {}) }
}

export type Profile = NonNullable<TrajectoryRequest['profile']>

/** What a checked request says beyond its fields. */
export interface CheckedFlight {
  profile: Profile
  launchMs: number
  /** The float's stop (epoch ms); NaN for the standard profile. */
  stopMs: number
  /** A pinned model run (epoch ms). */
  run: number | undefined
  /** The field naming the top of the ascent: burst_altitude or float_altitude. */
  top: 'burst_altitude' | 'float_altitude'
  spread: Spread | undefined
}

/** The profile's own fields present and sound; a FlightInputError naming each that is not. */
export function checkFlight (req: TrajectoryRequest): CheckedFlight {
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
        errors.push(issue('stop_datetime', 'The stop time must be after the launch', 'value_error', req.stop_datetime))
      }
    }
    if (req.ensemble !== undefined) {
      errors.push(issue('ensemble', 'Ensembles perturb the standard profile (ascent rate, burst altitude, descent ' +
        'rate); the float profile has none', 'value_error'))
    }
  }
  if (errors.length > 0) throw new FlightInputError(errors)
  return {
    profile,
    launchMs,
    stopMs,
    run: req.dataset === undefined ? undefined : Date.parse(req.dataset),
    top: profile === 'standard_profile' ? 'burst_altitude' : 'float_altitude',
    spread: req.ensemble === undefined ? undefined : {
      members: req.ensemble.members,
      ascentRateSd: req.ensemble.ascent_rate_sd ?? 0,
      burstAltitudeSd: req.ensemble.burst_altitude_sd ?? 0,
      descentRateSd: req.ensemble.descent_rate_sd ?? 0,
      seed: req.ensemble.seed ?? 0
    }
  }
}
