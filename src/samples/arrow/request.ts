// A bulk samples request as an Apache Arrow IPC stream (docs/DESIGN.md §6): a table of float64
// columns and a zoned timestamp, checked against its bytes (stream-check.ts) before
// apache-arrow reads it, and the options from the query string.
import { DataType, Precision, TimeUnit, Type, tableFromIPC, type Float, type Table } from 'apache-arrow'
import {
  LIMITS, SAMPLE_FIELDS, type SampleField, type ValidationErrorItem, MAX_PROBLEM_ERRORS as MAX_ERRORS
} from '../../contract/index.js'
import { checkArrowStream } from './stream-check.js'
import type { SamplePoints } from '../points.js'
import { bodyIssue, optionsOf, tooManyPoints, type PointsOrErrors } from '../request.js'

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

const MS_PER: Record<number, number> = {
  [TimeUnit.SECOND]: 1000, [TimeUnit.MILLISECOND]: 1, [TimeUnit.MICROSECOND]: 1e-3, [TimeUnit.NANOSECOND]: 1e-6
}

/** The request options from the query string (the body is the table). */
export interface ArrowQuery {
  altitude_reference?: string
  interpolation?: string
  out_of_column?: string
  fields?: string
  surface_layer?: string
}

/** Record batches one request stream may hold (100 000 one-row batches took 1.8 s and 500 MB to read). */
export const MAX_ARROW_BATCHES = 1024

/** Reads and checks an Arrow request: the table's columns and the query's options. */
export function pointsFromArrow (bytes: Uint8Array, query: ArrowQuery, maxPoints: number): PointsOrErrors {
  // apache-arrow trusts the stream's counts and lengths: they are checked against the bytes first
  const shape = checkArrowStream(bytes, { maxRows: maxPoints, maxBatches: MAX_ARROW_BATCHES })
  if (!shape.ok) {
    const loc = shape.column === undefined ? [] : [shape.column]
    return { ok: false, errors: [bodyIssue(loc, shape.reason, shape.type)] }
  }
  let table: Table
  try {
    table = tableFromIPC(bytes)
  } catch (err) {
    return { ok: false, errors: [bodyIssue([], `Not an Arrow IPC stream: ${(err as Error).message}`, 'arrow')] }
  }
  const errors: ValidationErrorItem[] = []
  const options = queryOptions(query, errors)
  const n = table.numRows
  if (n < 1) errors.push(bodyIssue([], 'The table has no rows', 'too_short'))
  if (n > maxPoints) errors.push(bodyIssue([], tooManyPoints(maxPoints), 'too_long'))
  const latitude = numbersOf(table, n, 'latitude', true, LIMITS.latitude, errors)
  const longitude = numbersOf(table, n, 'longitude', true, undefined, errors)
  const altitude = numbersOf(table, n, 'altitude_m', true, undefined, errors)
  const ground = numbersOf(table, n, 'ground_elevation_m_msl', false, LIMITS.groundElevation, errors)
  const time = timesOf(table, n, errors)
  if (errors.length > 0 || options === null || latitude === null || longitude === null || altitude === null ||
    time === null) {
    return { ok: false, errors: errors.slice(0, MAX_ERRORS) }
  }
  const points: SamplePoints = {
    n, latitude, longitude, altitude, time, ground: ground ?? new Float64Array(n).fill(NaN)
  }
  return { ok: true, points, options }
}

type Range = { min: number, max: number } | undefined

/** A column of numbers (null when absent or not numeric); its values checked against `range` (none: finite). */
function numbersOf (
  table: Table, n: number, name: string, required: boolean, range: Range, errors: ValidationErrorItem[]
): Float64Array | null {
  const column = table.getChild(name)
  if (column === null) {
    if (required) errors.push(bodyIssue([name], 'Column required', 'missing'))
    return null
  }
  if (!DataType.isFloat(column.type) && !DataType.isInt(column.type)) {
    errors.push(bodyIssue([name], `Expected a float64 column, got ${String(column.type)}`, 'float_type'))
    return null
  }
  // float64 without nulls is read in place (a view over the body: the plan copies what the
  // kernel reads); anything else value by value
  const whole = column.nullCount === 0 && column.type.typeId === Type.Float &&
    (column.type as Float).precision === Precision.DOUBLE
  if (whole) {
    const out = column.toArray() as Float64Array
    if (out.length !== n) {
      errors.push(bodyIssue([name], `The column holds ${out.length} values for ${n} rows`, 'arrow'))
      return null
    }
    checkRange(out, name, range, errors)
    return out
  }
  const out = new Float64Array(n)
  for (let p = 0; p < n && errors.length < MAX_ERRORS; p++) {
    const v = column.get(p) as number | bigint | null
    if (v === null) {
      if (required) errors.push(bodyIssue([name, p], 'Input should be a finite number', 'finite_number'))
      out[p] = NaN
      continue
    }
    const x = out[p] = Number(v)
    if (!Number.isFinite(x) || (range !== undefined && (x < range.min || x > range.max))) {
      errors.push(rangeIssue(name, p, range))
    }
  }
  return out
}

function rangeIssue (name: string, p: number, range: Range): ValidationErrorItem {
  return bodyIssue([name, p], range === undefined ? 'Input should be a finite number'
    : `Input should be a finite number from ${range.min} to ${range.max}`, 'number_range')
}

/** The values outside the range (or not finite), in point order, until the errors are full. */
function checkRange (values: Float64Array, name: string, range: Range, errors: ValidationErrorItem[]): void {
  // one comparison pair per value: NaN fails both, and a finite range refuses ±Infinity
  const min = range?.min ?? -Number.MAX_VALUE
  const max = range?.max ?? Number.MAX_VALUE
  for (let p = 0; p < values.length; p++) {
    const x = values[p]
    if (x >= min && x <= max) continue
    if (errors.length >= MAX_ERRORS) return
    errors.push(rangeIssue(name, p, range))
  }
}

function timesOf (table: Table, n: number, errors: ValidationErrorItem[]): Float64Array | null {
  const column = table.getChild('time')
  if (column === null) {
    errors.push(bodyIssue(['time'], 'Column required', 'missing'))
    return null
  }
  if (!DataType.isTimestamp(column.type)) {
    errors.push(bodyIssue(['time'], `Expected a timestamp column with a timezone, got ${String(column.type)}`,
      'timestamp_type'))
    return null
  }
  if (column.type.timezone === null || column.type.timezone === '') {
    errors.push(bodyIssue(['time'], 'A timestamp without a timezone names no instant: give it one (e.g. UTC)',
      'timestamp_timezone'))
    return null
  }
  const scale = MS_PER[column.type.unit]
  const out = new Float64Array(n)
  if (column.nullCount === 0) {
    const values = column.toArray() as BigInt64Array
    // the stream check guarantees every row's bytes; views below never reach past `values`
    if (values.length !== n) {
      errors.push(bodyIssue(['time'], `The column holds ${values.length} values for ${n} rows`, 'arrow'))
      return null
    }
    if (!LITTLE_ENDIAN) {
      for (let p = 0; p < n; p++) out[p] = Number(values[p]) * scale
      return out
    }
    // each int64 from its two 32-bit halves: hi × 2³² is exact and the one addition rounds as
    // Number(bigint) does, without making a BigInt per value
    const words = new Int32Array(values.buffer, values.byteOffset, 2 * values.length)
    for (let p = 0; p < n; p++) out[p] = (words[2 * p + 1] * 4294967296 + (words[2 * p] >>> 0)) * scale
    return out
  }
  for (let p = 0; p < n; p++) {
    const v = column.get(p) as number | bigint | null
    if (v === null) {
      errors.push(bodyIssue(['time', p], 'Input should be a timestamp', 'timestamp'))
      if (errors.length >= MAX_ERRORS) break
      continue
    }
    out[p] = Number(v) * scale
  }
  return out
}

const QUERY_NAMES = new Set(['altitude_reference', 'interpolation', 'out_of_column', 'fields', 'surface_layer'])

function queryOptions (query: ArrowQuery, errors: ValidationErrorItem[]): ReturnType<typeof optionsOf> | null {
  const loc = (name: string): string[] => ['query', name]
  const unknown = Object.keys(query).filter((name) => !QUERY_NAMES.has(name))
  if (unknown.length > 0) {
    for (const name of unknown.slice(0, MAX_ERRORS)) {
      errors.push({ loc: loc(name), msg: 'Unknown query parameter: the options are altitude_reference, ' +
        'interpolation, out_of_column, fields and surface_layer', type: 'extra_forbidden' })
    }
    return null
  }
  const bad = (name: string, msg: string): null => {
    errors.push({ loc: loc(name), msg, type: 'enum' })
    return null
  }
  const ref = query.altitude_reference
  if (ref !== 'agl' && ref !== 'msl') return bad('altitude_reference', "Input should be 'agl' or 'msl'")
  const interpolation = query.interpolation ?? 'linear'
  if (interpolation !== 'linear' && interpolation !== 'nearest') {
    return bad('interpolation', "Input should be 'linear' or 'nearest'")
  }
  const ooc = query.out_of_column ?? 'null'
  if (ooc !== 'null' && ooc !== 'nearest_level') {
    return bad('out_of_column', "Input should be 'null' or 'nearest_level'")
  }
  let fields: SampleField[] | undefined
  if (query.fields !== undefined) {
    const names = query.fields.split(',').filter((f) => f !== '')
    const unknown = names.filter((f) => !(SAMPLE_FIELDS as readonly string[]).includes(f))
    if (names.length === 0 || unknown.length > 0 || new Set(names).size !== names.length) {
      return bad('fields', `Expected distinct names among ${SAMPLE_FIELDS.join(', ')}`)
    }
    fields = names as SampleField[]
  }
  const surface = query.surface_layer ?? 'false'
  if (surface !== 'true' && surface !== 'false') return bad('surface_layer', "Input should be 'true' or 'false'")
  return optionsOf({ altitude_reference: ref, interpolation, out_of_column: ooc === 'null' ? null : 'nearest_level',
    fields, surface_layer: surface === 'true' })
}
