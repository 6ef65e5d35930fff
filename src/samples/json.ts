// Bulk samples in JSON (docs/DESIGN.md §6): the validated request body as typed arrays, and the
// columnar answer written straight from the typed arrays (Float64Array.join: the same digits as
// JSON.stringify, NaN → null).
import {
  type SampleField, SAMPLE_FIELDS, SAMPLE_STATUSES, SamplesRequest, MAX_PROBLEM_ERRORS, type ValidationErrorItem
} from '../contract/index.js'
import { OUT_ALTITUDE_MSL, OUT_GROUND } from './kernel.js'
import type { SamplesResult } from './engine.js'
import type { SampleOptions, SamplePoints } from './points.js'
import { samplesProvenance } from './provenance.js'
import { instantMs } from './instant.js'

/** A piece of a JSON answer: text, or bytes of ASCII text formatted on a pool worker. */
export type JsonPart = string | Uint8Array

export type PointsOrErrors = { ok: true, points: SamplePoints, options: SampleOptions }
  | { ok: false, errors: ValidationErrorItem[] }

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
      errors.push({ loc: ['body', name], msg: 'Unknown field: extra properties are not permitted',
        type: 'extra_forbidden', input: body[name] })
    }
  }
  for (const name of POINT_ARRAYS) {
    const value = body[name]
    if (!Array.isArray(value) || value.length <= maxPoints) continue
    total++
    if (errors.length < MAX_PROBLEM_ERRORS) {
      errors.push({ loc: ['body', name], msg: `At most ${maxPoints} points per request; got ${value.length} items`,
        type: 'too_long', ctx: { max_length: maxPoints } })
    }
  }
  const fields = body.fields
  if (Array.isArray(fields) && fields.length > SAMPLE_FIELDS.length) {
    total++
    if (errors.length < MAX_PROBLEM_ERRORS) {
      errors.push({ loc: ['body', 'fields'], msg: `Input should have at most ${SAMPLE_FIELDS.length} items`,
        type: 'too_long', ctx: { limit: SAMPLE_FIELDS.length } })
    }
  }
  return total === 0 ? null : { errors, total }
}

/** The schema-valid JSON body as points; errors for what one schema cannot say (lengths, the limit). */
export function pointsFromJson (body: SamplesRequest, maxPoints: number): PointsOrErrors {
  const n = body.latitude.length
  const errors: ValidationErrorItem[] = []
  if (n > maxPoints) {
    errors.push({ loc: ['body', 'latitude'], msg: `At most ${maxPoints} points per request`, type: 'too_long',
      ctx: { max_length: maxPoints } })
  }
  const sameLength = (name: string, value: unknown): void => {
    if (Array.isArray(value) && value.length !== n) {
      errors.push({ loc: ['body', name], msg: `Expected ${n} items, one per point (as latitude); got ${value.length}`,
        type: 'length_mismatch', ctx: { expected: n } })
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

export function optionsOf (body: Pick<SamplesRequest, 'altitude_reference' | 'interpolation' | 'out_of_column' |
  'fields'>): SampleOptions {
  return {
    interpolation: body.interpolation ?? 'linear',
    altitudeReference: body.altitude_reference,
    clamp: body.out_of_column === 'nearest_level',
    fields: body.fields ?? [...SAMPLE_FIELDS]
  }
}

const STATUS_JSON = SAMPLE_STATUSES.map((s) => Buffer.from(JSON.stringify(s), 'latin1'))
const LONGEST_STATUS = Math.max(...STATUS_JSON.map((b) => b.length))

/** The status column as the bytes of its JSON array (an array of 100 000 strings joined cost ~3 ms). */
export function statusBytes (status: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(status.length * (LONGEST_STATUS + 1) + 2)
  let at = 0
  out[at++] = 0x5b // [
  for (let p = 0; p < status.length; p++) {
    if (p > 0) out[at++] = 0x2c // ,
    const text = STATUS_JSON[status[p]]
    for (let k = 0; k < text.length; k++) out[at++] = text[k]
  }
  out[at++] = 0x5d // ]
  return out.subarray(0, at)
}

/** A column of numbers as a JSON array (NaN → null). */
export function numbers (values: Float64Array): string {
  let text = '['
  for (let start = 0; start < values.length; start += CHUNK_VALUES) {
    if (start > 0) text += ','
    text += chunkText(values.subarray(start, Math.min(values.length, start + CHUNK_VALUES)))
  }
  return text + ']'
}

/** The most bytes a number takes in JSON text (e.g. -0.0000012345678901234567) with its comma. */
const MAX_NUMBER_BYTES = 26
/** Values formatted at a time: small strings, collected young. */
const CHUNK_VALUES = 4096

/**
 * Numbers joined by commas, NaN as null, each as Number's toString writes it. JSON.stringify of
 * a plain array of doubles writes the same digits (ECMAScript: ToString) about twice as fast as
 * join, which makes a string per number; it would write ±Infinity as null, so a chunk holding
 * one is joined instead (as an answer always printed it).
 */
function chunkText (values: Float64Array): string {
  if (values.includes(Infinity) || values.includes(-Infinity)) {
    const text = values.join(',')
    return values.includes(NaN) ? text.replace(/NaN/g, 'null') : text
  }
  const text = JSON.stringify(Array.from(values))
  return text.slice(1, -1)
}

/** The most bytes `numberBytes` writes for n values (brackets included). */
export function numberBytesLength (n: number): number {
  return n * MAX_NUMBER_BYTES + 2
}

/**
 * The same text as `numbers`, as bytes: what a pool worker runs for large answers. One
 * whole-column string (and its copy into the main thread's heap, then into bytes for the socket)
 * grew each worker's heap by tens of MB per answer.
 */
export function numberBytes (values: Float64Array): Uint8Array {
  const out = Buffer.allocUnsafeSlow(numberBytesLength(values.length))
  return out.subarray(0, numberBytesInto(values, out))
}

/**
 * Writes `numberBytes`'s text into `out` (at least numberBytesLength(values.length) bytes: a
 * request's reused shared memory, whose pages are not new) and returns its length.
 */
export function numberBytesInto (values: Float64Array, out: Uint8Array): number {
  const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength)
  let at = 0
  bytes[at++] = 0x5b // [
  for (let start = 0; start < values.length; start += CHUNK_VALUES) {
    if (start > 0) bytes[at++] = 0x2c // ,
    at += bytes.write(chunkText(values.subarray(start, Math.min(values.length, start + CHUNK_VALUES))), at, 'latin1')
  }
  bytes[at++] = 0x5d // ]
  return at
}

/**
 * Unit indices as the bytes of their JSON array, −1 as null: written digit by digit (they are
 * small), where joining an Int32Array made a string per value (~10 ms a 100 000-point column).
 */
export function indexBytes (values: Int32Array): Uint8Array {
  const out = Buffer.allocUnsafe(values.length * 12 + 2)
  let at = 0
  out[at++] = 0x5b // [
  for (let p = 0; p < values.length; p++) {
    if (p > 0) out[at++] = 0x2c // ,
    const v = values[p]
    if (v >= 0 && v < 10) {
      out[at++] = 0x30 + v
    } else if (v === -1) {
      out[at++] = 0x6e; out[at++] = 0x75; out[at++] = 0x6c; out[at++] = 0x6c // null
    } else {
      at += out.write(String(v), at, 'latin1')
    }
  }
  out[at++] = 0x5d // ]
  return out.subarray(0, at)
}

/**
 * The JSON answer, as pieces of text to be written in order (joined, a 100 000-point answer would
 * be one more copy of some 20 MB). `format` turns a column of numbers into its JSON array; given one that
 * runs on the worker pool, the columns of a large answer are formatted in parallel (formatting
 * doubles is most of the cost of a JSON answer).
 */
export async function samplesJson (
  result: SamplesResult, format: (values: Float64Array) => JsonPart | Promise<JsonPart> = numbers
): Promise<JsonPart[]> {
  const { n, options, out } = result
  const columns = [...options.fields.map(fieldIndex), OUT_ALTITUDE_MSL, OUT_GROUND]
  // every column settled before a failure is thrown: pool workers write into the request's memory,
  // which goes back for reuse once the request fails
  const settled = await Promise.allSettled([
    ...columns.map(async (c) => await format(out.subarray(c * n, (c + 1) * n))),
    Promise.resolve(format(result.timeWeight))
  ])
  const failed = settled.find((r) => r.status === 'rejected')
  if (failed !== undefined) throw failed.reason
  const texts = settled.map((r) => (r as PromiseFulfilledResult<JsonPart>).value)
  const formatted = new Map(columns.map((c, k) => [c, texts[k]]))
  const column = (c: number): JsonPart => formatted.get(c) as JsonPart
  const parts: JsonPart[] = [
    `{"count":${n},"interpolation":${JSON.stringify(options.interpolation)}`,
    `,"altitude_reference":${JSON.stringify(options.altitudeReference)}`,
    `,"out_of_column":${options.clamp ? '"nearest_level"' : 'null'}`,
    `,"fields":${JSON.stringify(options.fields)}`,
    `,"units":${JSON.stringify(result.units)}`,
    ',"columns":{"status":', statusBytes(result.status)
  ]
  // a formatted column is a part of its own (bytes from a worker are written as they are)
  for (const f of options.fields) parts.push(`,${JSON.stringify(f)}:`, column(fieldIndex(f)))
  parts.push(',"altitude_msl_m":', column(OUT_ALTITUDE_MSL), ',"ground_elevation_m_msl":', column(OUT_GROUND),
    ',"unit_before":', indexBytes(result.unitBefore), ',"unit_after":', indexBytes(result.unitAfter),
    ',"time_weight":', texts[texts.length - 1],
    `},"provenance":${JSON.stringify(samplesProvenance(options))}}`)
  return parts
}

export function fieldIndex (field: SampleField): number {
  return SAMPLE_FIELDS.indexOf(field)
}
