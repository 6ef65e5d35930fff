// Bulk samples in Apache Arrow IPC streams (docs/DESIGN.md §6), with the apache-arrow package: a
// request table of float64 columns and a zoned timestamp, and an answer written one record batch
// per computed slice, so the first rows leave before the last are computed.
import {
  DataType, Dictionary, Field, Float64, Int32, Int8, Precision, RecordBatch, RecordBatchStreamWriter, Schema,
  Struct, TimeUnit, Type, Utf8, makeData, tableFromIPC, vectorFromArray, type Data, type Float, type Table,
  type Vector
} from 'apache-arrow'
import type { Readable } from 'node:stream'
import {
  LIMITS, SAMPLE_FIELDS, SAMPLE_STATUSES, type SampleField, type ValidationErrorItem,
  MAX_PROBLEM_ERRORS as MAX_ERRORS
} from '../contract/index.js'
import { OK, OUT_ALTITUDE_MSL, OUT_GROUND } from './kernel.js'
import type { SamplesResult } from './engine.js'
import type { SamplePoints } from './points.js'
import type { PointsOrErrors } from './json.js'
import { optionsOf, fieldIndex } from './json.js'
import { samplesProvenance } from './provenance.js'
import { checkArrowStream } from './arrow-check.js'

type Loc = Array<string | number>
const issue = (loc: Loc, msg: string, type: string): ValidationErrorItem => ({ loc: ['body', ...loc], msg, type })

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
}

/** Record batches one request stream may hold (100 000 one-row batches took 1.8 s and 500 MB to read). */
export const MAX_ARROW_BATCHES = 1024

/** Reads and checks an Arrow request: the table's columns and the query's options. */
export function pointsFromArrow (bytes: Uint8Array, query: ArrowQuery, maxPoints: number): PointsOrErrors {
  // apache-arrow trusts the stream's counts and lengths: they are checked against the bytes first
  const shape = checkArrowStream(bytes, { maxRows: maxPoints, maxBatches: MAX_ARROW_BATCHES })
  if (!shape.ok) {
    return { ok: false, errors: [issue(shape.column === undefined ? [] : [shape.column], shape.reason, shape.type)] }
  }
  let table: Table
  try {
    table = tableFromIPC(bytes)
  } catch (err) {
    return { ok: false, errors: [issue([], `Not an Arrow IPC stream: ${(err as Error).message}`, 'arrow')] }
  }
  const errors: ValidationErrorItem[] = []
  const options = queryOptions(query, errors)
  const n = table.numRows
  if (n < 1) errors.push(issue([], 'The table has no rows', 'too_short'))
  if (n > maxPoints) errors.push(issue([], `At most ${maxPoints} points per request`, 'too_long'))
  const numbers = (name: string, required: boolean, range?: { min: number, max: number }): Float64Array | null => {
    const column = table.getChild(name)
    if (column === null) {
      if (required) errors.push(issue([name], 'Column required', 'missing'))
      return null
    }
    if (!DataType.isFloat(column.type) && !DataType.isInt(column.type)) {
      errors.push(issue([name], `Expected a float64 column, got ${String(column.type)}`, 'float_type'))
      return null
    }
    // float64 without nulls is read in place (a view over the body: the plan copies what the
    // kernel reads); anything else value by value
    const whole = column.nullCount === 0 && column.type.typeId === Type.Float &&
      (column.type as Float).precision === Precision.DOUBLE
    if (whole) {
      const out = column.toArray() as Float64Array
      if (out.length !== n) {
        errors.push(issue([name], `The column holds ${out.length} values for ${n} rows`, 'arrow'))
        return null
      }
      checkRange(out, name, range, errors)
      return out
    }
    const out = new Float64Array(n)
    for (let p = 0; p < n && errors.length < MAX_ERRORS; p++) {
      const v = column.get(p) as number | bigint | null
      if (v === null) {
        if (required) errors.push(issue([name, p], 'Input should be a finite number', 'finite_number'))
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
  const latitude = numbers('latitude', true, LIMITS.latitude)
  const longitude = numbers('longitude', true)
  const altitude = numbers('altitude_m', true)
  const ground = numbers('ground_elevation_m_msl', false, LIMITS.groundElevation)
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

function rangeIssue (name: string, p: number, range: Range): ValidationErrorItem {
  return issue([name, p], range === undefined ? 'Input should be a finite number'
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
    errors.push(issue(['time'], 'Column required', 'missing'))
    return null
  }
  if (!DataType.isTimestamp(column.type)) {
    errors.push(issue(['time'], `Expected a timestamp column with a timezone, got ${String(column.type)}`,
      'timestamp_type'))
    return null
  }
  if (column.type.timezone === null || column.type.timezone === '') {
    errors.push(issue(['time'], 'A timestamp without a timezone names no instant: give it one (e.g. UTC)',
      'timestamp_timezone'))
    return null
  }
  const scale = MS_PER[column.type.unit]
  const out = new Float64Array(n)
  if (column.nullCount === 0) {
    const values = column.toArray() as BigInt64Array
    // the stream check guarantees every row's bytes; views below never reach past `values`
    if (values.length !== n) {
      errors.push(issue(['time'], `The column holds ${values.length} values for ${n} rows`, 'arrow'))
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
      errors.push(issue(['time', p], 'Input should be a timestamp', 'timestamp'))
      if (errors.length >= MAX_ERRORS) break
      continue
    }
    out[p] = Number(v) * scale
  }
  return out
}

const QUERY_NAMES = new Set(['altitude_reference', 'interpolation', 'out_of_column', 'fields'])

function queryOptions (query: ArrowQuery, errors: ValidationErrorItem[]): ReturnType<typeof optionsOf> | null {
  const loc = (name: string): Loc => ['query', name]
  const unknown = Object.keys(query).filter((name) => !QUERY_NAMES.has(name))
  if (unknown.length > 0) {
    for (const name of unknown.slice(0, MAX_ERRORS)) {
      errors.push({ loc: loc(name), msg: 'Unknown query parameter: the options are altitude_reference, ' +
        'interpolation, out_of_column and fields', type: 'extra_forbidden' })
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
  return optionsOf({ altitude_reference: ref, interpolation, out_of_column: ooc === 'null' ? null : 'nearest_level',
    fields })
}

// Validity bitmaps of a slice [start, start + length) and their null counts: one loop per kind
// of test (a shared loop calling a test per value cost ~10 ms a 100 000-point answer)

function okBits (status: Uint8Array, start: number, length: number): [Uint8Array, number] {
  const bits = new Uint8Array((length + 7) >> 3)
  let nulls = 0
  for (let p = 0; p < length; p++) {
    if (status[start + p] === OK) bits[p >> 3] |= 1 << (p & 7)
    else nulls++
  }
  return [bits, nulls]
}

/** Unit indices: −1 is null. */
function indexBits (values: Int32Array, start: number, length: number): [Uint8Array, number] {
  const bits = new Uint8Array((length + 7) >> 3)
  let nulls = 0
  for (let p = 0; p < length; p++) {
    if (values[start + p] >= 0) bits[p >> 3] |= 1 << (p & 7)
    else nulls++
  }
  return [bits, nulls]
}

/** Numbers: NaN is null. */
function numberBits (values: Float64Array, start: number, length: number): [Uint8Array, number] {
  const bits = new Uint8Array((length + 7) >> 3)
  let nulls = 0
  for (let p = 0; p < length; p++) {
    const v = values[start + p]
    if (v === v) bits[p >> 3] |= 1 << (p & 7)
    else nulls++
  }
  return [bits, nulls]
}

const STATUS_TYPE = new Dictionary(new Utf8(), new Int8(), 0, false)
const STATUS_DICTIONARY: Vector = vectorFromArray([...SAMPLE_STATUSES], new Utf8())

/** Writes an Arrow answer: the schema (with `aloft:units` and `aloft:provenance`) then one batch per slice. */
export class ArrowSamplesWriter {
  readonly #writer = new RecordBatchStreamWriter()
  readonly stream: Readable
  #schema: Schema | null = null
  #fields: SampleField[] = []

  constructor () {
    this.stream = this.#writer.toNodeStream() as unknown as Readable
  }

  /** Writes points [start, end) of a result (its units must be known: after loading). */
  writeSlice (result: SamplesResult, start: number, end: number): void {
    this.#schema ??= this.#schemaOf(result)
    const n = result.n
    const length = end - start
    const [valid, invalid] = okBits(result.status, start, length)
    const float = (values: Float64Array, bitmap: Uint8Array = valid, nulls = invalid): Data => makeData({
      type: new Float64(), length, nullCount: nulls, nullBitmap: nulls === 0 ? null : bitmap, data: values
    })
    const column = (c: number): Data => float(result.out.subarray(c * n + start, c * n + end))
    const index = (values: Int32Array): Data => {
      const [bits, nulls] = indexBits(values, start, length)
      return makeData({ type: new Int32(), length, nullCount: nulls, nullBitmap: nulls === 0 ? null : bits,
        data: values.subarray(start, end) })
    }
    const [twBits, twNulls] = numberBits(result.timeWeight, start, length)
    const weights = result.timeWeight.subarray(start, end)
    const children: Data[] = [
      makeData({ type: STATUS_TYPE, length, data: new Int8Array(result.status.buffer, start, length),
        dictionary: STATUS_DICTIONARY }),
      ...this.#fields.map((f) => column(fieldIndex(f))),
      column(OUT_ALTITUDE_MSL),
      column(OUT_GROUND),
      index(result.unitBefore),
      index(result.unitAfter),
      float(weights, twBits, twNulls)
    ]
    const schema = this.#schema
    this.#writer.write(new RecordBatch(schema,
      makeData({ type: new Struct(schema.fields), length, nullCount: 0, children })))
  }

  end (): void {
    this.#writer.finish()
  }

  #schemaOf (result: SamplesResult): Schema {
    this.#fields = result.options.fields
    const fields = [
      new Field('status', STATUS_TYPE, false),
      ...this.#fields.map((f) => new Field(f, new Float64(), true)),
      new Field('altitude_msl_m', new Float64(), true),
      new Field('ground_elevation_m_msl', new Float64(), true),
      new Field('unit_before', new Int32(), true),
      new Field('unit_after', new Int32(), true),
      new Field('time_weight', new Float64(), true)
    ]
    return new Schema(fields, new Map([
      ['aloft:units', JSON.stringify(result.units)],
      ['aloft:provenance', JSON.stringify(samplesProvenance(result.options))]
    ]))
  }
}
