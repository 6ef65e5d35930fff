// An Arrow request stream's schema checked (Arrow's Schema.fbs): flat columns only, each with the
// buffers its type has and the width its data buffer's size follows from.
import { type Flat, ShapeError, about, scalar } from './flatbuffers.js'

/** Columns (top-level fields) a request table may have. */
export const MAX_ARROW_COLUMNS = 256

/** Buffers per column and how the data buffer's size follows from the row count. */
export interface ColumnShape {
  name: string
  type: string
  buffers: number
  /** Bytes per row of the data buffer; 0: bits (bool); −1: no size rule (variable-width data). */
  width: number
  /** Bytes per offset (variable-width types), else 0. */
  offsetWidth: number
}

// Type union of Schema.fbs, as far as a request table may use it: flat columns only
const TYPE_NULL = 1
const TYPE_INT = 2
const TYPE_FLOAT = 3
const TYPE_BINARY = 4
const TYPE_UTF8 = 5
const TYPE_BOOL = 6
const TYPE_DECIMAL = 7
const TYPE_DATE = 8
const TYPE_TIME = 9
const TYPE_TIMESTAMP = 10
const TYPE_INTERVAL = 11
const TYPE_FIXED_SIZE_BINARY = 15
const TYPE_DURATION = 18
const TYPE_LARGE_BINARY = 19
const TYPE_LARGE_UTF8 = 20
const TYPE_NAMES: Record<number, string> = {
  0: 'none', 1: 'null', 2: 'int', 3: 'floating point', 4: 'binary', 5: 'utf8', 6: 'bool', 7: 'decimal', 8: 'date',
  9: 'time', 10: 'timestamp', 11: 'interval', 12: 'list', 13: 'struct', 14: 'union', 15: 'fixed-size binary',
  16: 'fixed-size list', 17: 'map', 18: 'duration', 19: 'large binary', 20: 'large utf8', 21: 'large list',
  22: 'run-end encoded', 23: 'binary view', 24: 'utf8 view', 25: 'list view', 26: 'large list view'
}

/** How the errors name a column: by its name, else its place. */
export function columnLabel (name: string, k: number): string {
  return name === '' ? `column ${k}` : `column ${JSON.stringify(name.slice(0, 64))}`
}

/** Every key-value table of a custom_metadata vector is in bounds. */
export function checkKeyValues (fb: Flat, table: number, index: number, what: string): void {
  const at = fb.field(table, index, 4, what)
  if (at < 0) return
  const { count, start } = fb.vector(at, 4, what)
  for (let k = 0; k < count; k++) {
    const entry = fb.table(start + 4 * k, `${what} ${k}`)
    for (const f of [0, 1]) {
      const s = fb.field(entry, f, 4, `${what} ${k}`)
      if (s >= 0) fb.vector(s, 1, `${what} ${k}`)
    }
  }
}

/** Seconds, milliseconds, microseconds or nanoseconds (TimeUnit 0–3). */
function timeUnit (unit: number, label: string): void {
  if (unit < 0 || unit > 3) throw new ShapeError(`${label}: time unit ${unit}`)
}

/** One top-level field of the schema: a flat column, its buffers and sizes. */
function flatColumn (fb: Flat, field: number, k: number, name: string): ColumnShape {
  const label = columnLabel(name, k)
  const typeId = scalar(fb, field, 2, 'u8', 0, label)
  const typeName = TYPE_NAMES[typeId] ?? `type ${typeId}`
  const typeAt = fb.field(field, 3, 4, label)
  const type = typeAt < 0 ? -1 : fb.table(typeAt, `${label}'s type`)
  if (fb.field(field, 4, 4, label) >= 0) {
    throw new ShapeError(`${label} is dictionary-encoded; send its values as a plain column`)
  }
  const childrenAt = fb.field(field, 5, 4, label)
  if (childrenAt >= 0 && fb.vector(childrenAt, 4, `${label}'s children`).count > 0) {
    throw new ShapeError(`${label} has child fields (${typeName}); only flat columns are accepted`)
  }
  checkKeyValues(fb, field, 6, `${label}'s metadata`)
  const typeField = (index: number, kind: 'i16' | 'i32', fallback: number): number =>
    type < 0 ? fallback : scalar(fb, type, index, kind, fallback, `${label}'s type`)
  const shape = (buffers: number, width: number, offsetWidth = 0): ColumnShape =>
    ({ name, type: typeName, buffers, width, offsetWidth })
  switch (typeId) {
    case TYPE_NULL: return shape(0, -1)
    case TYPE_BOOL: return shape(2, 0)
    case TYPE_INT: {
      const bits = typeField(0, 'i32', 0)
      if (![8, 16, 32, 64].includes(bits)) throw new ShapeError(`${label}: an int of ${bits} bits`)
      return shape(2, bits / 8)
    }
    case TYPE_FLOAT: {
      const precision = typeField(0, 'i16', 0)
      if (precision < 0 || precision > 2) throw new ShapeError(`${label}: floating-point precision ${precision}`)
      return shape(2, 2 ** (precision + 1))
    }
    case TYPE_DECIMAL: {
      const bits = typeField(2, 'i32', 128)
      if (![32, 64, 128, 256].includes(bits)) throw new ShapeError(`${label}: a decimal of ${bits} bits`)
      return shape(2, bits / 8)
    }
    case TYPE_DATE: {
      const unit = typeField(0, 'i16', 1)
      if (unit !== 0 && unit !== 1) throw new ShapeError(`${label}: date unit ${unit}`)
      return shape(2, unit === 0 ? 4 : 8)
    }
    case TYPE_TIME: {
      const bits = typeField(1, 'i32', 32)
      if (bits !== 32 && bits !== 64) throw new ShapeError(`${label}: a time of ${bits} bits`)
      timeUnit(typeField(0, 'i16', 1), label)
      return shape(2, bits / 8)
    }
    case TYPE_TIMESTAMP: {
      timeUnit(typeField(0, 'i16', 0), label)
      const zone = type < 0 ? -1 : fb.field(type, 1, 4, `${label}'s type`)
      if (zone >= 0) fb.vector(zone, 1, `${label}'s timezone`)
      return shape(2, 8)
    }
    case TYPE_DURATION:
      timeUnit(typeField(0, 'i16', 1), label)
      return shape(2, 8)
    case TYPE_INTERVAL: {
      const unit = typeField(0, 'i16', 0)
      if (unit < 0 || unit > 2) throw new ShapeError(`${label}: interval unit ${unit}`)
      return shape(2, [4, 8, 16][unit])
    }
    case TYPE_FIXED_SIZE_BINARY: {
      const width = typeField(0, 'i32', 0)
      if (width < 1 || width > 1 << 20) throw new ShapeError(`${label}: a fixed-size binary of ${width} bytes`)
      return shape(2, width)
    }
    case TYPE_BINARY: case TYPE_UTF8: return shape(3, -1, 4)
    case TYPE_LARGE_BINARY: case TYPE_LARGE_UTF8: return shape(3, -1, 8)
    default:
      throw new ShapeError(`${label} has type ${typeName}; only flat columns (numbers, timestamps, strings) ` +
        'are accepted')
  }
}

/** The schema's columns, at most MAX_ARROW_COLUMNS; each column's errors name it. */
export function checkSchema (fb: Flat, schema: number): ColumnShape[] {
  if (scalar(fb, schema, 0, 'i16', 0, 'the schema') !== 0) {
    throw new ShapeError('the schema is big-endian; send a little-endian stream')
  }
  checkKeyValues(fb, schema, 2, 'the schema\'s metadata')
  const features = fb.field(schema, 3, 4, 'the schema')
  if (features >= 0) fb.vector(features, 8, 'the schema\'s features')
  const fieldsAt = fb.field(schema, 1, 4, 'the schema')
  const { count, start } = fieldsAt < 0 ? { count: 0, start: 0 } : fb.vector(fieldsAt, 4, 'the schema\'s fields')
  if (count > MAX_ARROW_COLUMNS) {
    throw new ShapeError(`the schema has ${count} columns; at most ${MAX_ARROW_COLUMNS} are accepted`)
  }
  const columns: ColumnShape[] = []
  for (let k = 0; k < count; k++) columns.push(columnShape(fb, fb.table(start + 4 * k, `column ${k}`), k))
  return columns
}

/** One column's shape; its errors name it. */
function columnShape (fb: Flat, field: number, k: number): ColumnShape {
  const nameAt = fb.field(field, 0, 4, `column ${k}`)
  const name = nameAt < 0 ? '' : fb.string(nameAt, `column ${k}'s name`)
  try {
    return flatColumn(fb, field, k, name)
  } catch (err) {
    throw about(name, err)
  }
}
