// A Tawhiri query read by Tawhiri's rules (docs/DESIGN.md §9, the SondeHub fork's parse_request):
// its parameters by name, anything else ignored (pred_type, cache busters); longitudes 0 ≤ x < 360
// as Tawhiri's, or −180 … 180 as aloft's; rates below 0.2 m/s raised to 0.2; `latest` as no
// dataset. The result is aloft's own TrajectoryRequest, checked by its schema like any other (a
// reverse_profile's fields too, then read as the balloon seen aloft).
import {
  isDecimal, TAWHIRI_FORMATS, TAWHIRI_MIN_RATE, type TawhiriFormat, TrajectoryRequest, validate
} from '../../contract/index.js'
import { HttpProblem } from '../problem.js'

/** What a Tawhiri prediction query asks for. */
export type TawhiriAsk =
  | { kind: 'flight', request: TrajectoryRequest, format: TawhiriFormat }
  | { kind: 'reverse', seen: ReverseAsk, format: TawhiriFormat }

/** reverse_profile: a balloon seen aloft, its ascent rate, and a pinned run if any (epoch ms). */
export interface ReverseAsk {
  latitude: number
  longitude: number
  altitude?: number
  timeMs: number
  ascentRate: number
  run?: number
}

const LATEST = 'latest'

/** The first value of a query parameter (Flask's `request.args[name]`), or undefined. */
export function firstValue (query: Record<string, unknown>, name: string): string | undefined {
  const raw = Object.hasOwn(query, name) ? query[name] : undefined
  const value = Array.isArray(raw) ? raw[0] as unknown : raw
  return typeof value === 'string' ? value : undefined
}

/** A refusal in the fork's words, and what to change. */
function refuse (description: string): HttpProblem {
  return new HttpProblem('invalid_request', { detail: description })
}

/** The query read as Tawhiri reads its parameters; the rules below in its order. */
export class TawhiriQueryReader {
  constructor (private readonly query: Record<string, unknown>) {}

  text (name: string, need: string): string
  text (name: string, need: string, optional: true): string | undefined
  text (name: string, need: string, optional?: true): string | undefined {
    const value = firstValue(this.query, name)
    if (value === undefined && optional !== true) {
      throw refuse(`Parameter '${name}' not provided in request. Add ${name}: ${need}.`)
    }
    return value
  }

  number (name: string, need: string, valid: (x: number) => boolean): number
  number (name: string, need: string, valid: (x: number) => boolean, optional: true): number | undefined
  number (name: string, need: string, valid: (x: number) => boolean, optional?: true): number | undefined {
    const raw = optional === true ? this.text(name, need, true) : this.text(name, need)
    if (raw === undefined) return undefined
    const trimmed = raw.trim()
    if (!isDecimal(trimmed)) throw refuse(`Unable to parse parameter '${name}': ${raw}. Give ${name} as ${need}.`)
    const x = Number(trimmed)
    if (!valid(x)) throw refuse(`Invalid value for parameter '${name}': ${raw}. Give ${name} as ${need}.`)
    return x
  }

  /** A rate: more than 0, and raised to the fork's 0.2 m/s when below it. */
  rate (name: string): number {
    return Math.max(TAWHIRI_MIN_RATE, this.number(name, 'a rate in m/s above 0', (x) => x > 0))
  }
}

export function readTawhiriQuery (query: Record<string, unknown>): TawhiriAsk {
  const q = new TawhiriQueryReader(query)
  const latitude = q.number('launch_latitude', 'degrees north from -90 to 90', (x) => x >= -90 && x <= 90)
  const longitude = q.number('launch_longitude', 'degrees east, from 0 up to (not including) 360, or -180 to 180',
    (x) => x >= -180 && x < 360)
  const datetime = q.text('launch_datetime', 'an RFC 3339 time such as 2020-08-04T12:00:00Z')
  const altitude = q.number('launch_altitude', 'metres above sea level', Number.isFinite, true)
  const format = q.text('format', 'json, csv or kml', true) ?? 'json'
  if (!(TAWHIRI_FORMATS as readonly string[]).includes(format)) {
    throw refuse(`Format not supported: ${format}. Ask for format json (the default), csv or kml.`)
  }
  const profile = q.text('profile', 'standard_profile, float_profile or reverse_profile', true) ?? 'standard_profile'
  const base = { launch_latitude: latitude, launch_longitude: longitude, launch_datetime: datetime,
    ...(altitude !== undefined ? { launch_altitude: altitude } : {}) }
  let flight: Record<string, unknown>
  if (profile === 'standard_profile') {
    flight = { ...base, profile, ascent_rate: q.rate('ascent_rate'),
      burst_altitude: q.number('burst_altitude', 'metres above sea level, above the launch', Number.isFinite),
      descent_rate: q.rate('descent_rate') }
  } else if (profile === 'float_profile') {
    flight = { ...base, profile, ascent_rate: q.rate('ascent_rate'),
      float_altitude: q.number('float_altitude', 'metres above sea level, above the launch', Number.isFinite),
      stop_datetime: q.text('stop_datetime', 'an RFC 3339 time after the launch') }
  } else if (profile === 'reverse_profile') {
    flight = { ...base, ascent_rate: q.rate('ascent_rate') }
  } else {
    throw refuse(`Unknown profile '${profile}'. Ask for standard_profile, float_profile or reverse_profile.`)
  }
  const dataset = q.text('dataset', 'a model run as an RFC 3339 time, or latest', true)
  if (dataset !== undefined && dataset !== LATEST) flight.dataset = dataset
  const checked = validate(TrajectoryRequest, flight, 'query')
  if (!checked.ok) {
    throw new HttpProblem('invalid_request', {
      detail: 'The query does not describe a flight:', errors: checked.errors
    })
  }
  const request = checked.value
  if (profile !== 'reverse_profile') return { kind: 'flight', request, format: format as TawhiriFormat }
  return {
    kind: 'reverse',
    seen: { latitude, longitude, timeMs: Date.parse(request.launch_datetime), ascentRate: request.ascent_rate,
      ...(altitude !== undefined ? { altitude } : {}),
      ...(request.dataset !== undefined ? { run: Date.parse(request.dataset) } : {}) },
    format: format as TawhiriFormat
  }
}
