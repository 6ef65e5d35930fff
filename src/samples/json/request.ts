// A bulk samples request in JSON (docs/DESIGN.md §6): what bounds the body's validation, and the
// validated body as typed arrays.
import {
  SAMPLE_FIELDS, SamplesRequest, MAX_PROBLEM_ERRORS, type ValidationErrorItem
} from '../../contract/index.js'
import { instantMs } from './instant.js'
import type { SamplePoints } from '../points.js'
import { bodyIssue, optionsOf, tooManyPoints, type PointsOrErrors } from '../request.js'

const KNOWN_PROPERTIES = new Set(Object.keys(SamplesRequest.properties))
/** The body's arrays: one item per point (or per output field). */
const POINT_ARRAYS = ['latitude', 'longitude', 'altitude_m', 'time', 'ground_elevation_m_msl'] as const

/**
 * What bounds the work of validating a samples body, checked before the schema is: arrays longer
 * than the point limit and unknown properties. Validating ten million items, or building an error
 * for each of a million unknown properties, would hold the event loop for seconds. Null when the
 * body passes (or is not an object: the schema says so).
 */
export function samplesBodyBounds (
  raw: unknown, maxPoints: number
): { errors: ValidationErrorItem[], total: number } | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null
  const body = raw as Record<string, unknown>
  const errors: ValidationErrorItem[] = []
  let total = 0
  for (const name in body) {
    if (KNOWN_PROPERTIES.has(name)) continue
    // every one is counted, the first few described
    if (++total <= MAX_PROBLEM_ERRORS) {
      errors.push(bodyIssue([name], 'Unknown field: extra properties are not permitted', 'extra_forbidden',
        { input: body[name] }))
    }
  }
  for (const name of POINT_ARRAYS) {
    const value = body[name]
    if (!Array.isArray(value) || value.length <= maxPoints) continue
    total++
    if (errors.length < MAX_PROBLEM_ERRORS) {
      errors.push(bodyIssue([name], `${tooManyPoints(maxPoints)}; got ${value.length} items`, 'too_long',
        { ctx: { max_length: maxPoints } }))
    }
  }
  const fields = body.fields
  if (Array.isArray(fields) && fields.length > SAMPLE_FIELDS.length) {
    total++
    if (errors.length < MAX_PROBLEM_ERRORS) {
      errors.push(bodyIssue(['fields'], `Input should have at most ${SAMPLE_FIELDS.length} items`, 'too_long',
        { ctx: { limit: SAMPLE_FIELDS.length } }))
    }
  }
  return total === 0 ? null : { errors, total }
}

/** The schema-valid JSON body as points; errors for what one schema cannot say (lengths, the limit). */
export function pointsFromJson (body: SamplesRequest, maxPoints: number): PointsOrErrors {
  const n = body.latitude.length
  const errors: ValidationErrorItem[] = []
  if (n > maxPoints) {
    errors.push(bodyIssue(['latitude'], tooManyPoints(maxPoints), 'too_long', { ctx: { max_length: maxPoints } }))
  }
  const sameLength = (name: string, value: unknown): void => {
    if (Array.isArray(value) && value.length !== n) {
      errors.push(bodyIssue([name], `Expected ${n} items, one per point (as latitude); got ${value.length}`,
        'length_mismatch', { ctx: { expected: n } }))
    }
  }
  sameLength('longitude', body.longitude)
  sameLength('altitude_m', body.altitude_m)
  sameLength('time', body.time)
  sameLength('ground_elevation_m_msl', body.ground_elevation_m_msl)
  if (errors.length > 0) return { ok: false, errors }

  const points: SamplePoints = {
    n,
    latitude: Float64Array.from(body.latitude),
    longitude: Float64Array.from(body.longitude),
    altitude: new Float64Array(n),
    time: new Float64Array(n),
    ground: new Float64Array(n)
  }
  points.altitude.set(body.altitude_m)
  if (typeof body.time === 'string') points.time.fill(instantMs(body.time))
  else for (let p = 0; p < n; p++) points.time[p] = instantMs(body.time[p])
  const g = body.ground_elevation_m_msl
  if (Array.isArray(g)) for (let p = 0; p < n; p++) points.ground[p] = g[p] ?? NaN
  else points.ground.fill(g ?? NaN)
  return { ok: true, points, options: optionsOf(body) }
}
