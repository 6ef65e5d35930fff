// An Arrow IPC stream's metadata checked against the bytes actually received, before apache-arrow
// reads it. apache-arrow trusts every count and length in the stream: a vector length of 2·10⁹
// makes it loop and allocate until the process dies, and a buffer declared longer than the body
// becomes a view the request's own bytes do not fill. Here each FlatBuffers table, vector and
// string is bounds-checked, every record batch's nodes and buffers are matched against the
// schema and lie inside the message body, and the stream is limited to flat columns, a bounded
// number of batches and rows. What passes costs apache-arrow time and memory linear in the body.
//
// Layouts: Arrow's Message.fbs and Schema.fbs (format version 4 and 5, little-endian).

/** What a request stream may hold. */
export interface ArrowStreamLimits {
  /** Rows in all record batches together. */
  maxRows: number
  /** Record batches. */
  maxBatches: number
}

/** Columns (top-level fields) a request table may have. */
export const MAX_ARROW_COLUMNS = 256
/** The FlatBuffers metadata of one message, in bytes (a schema with pandas metadata is a few KB). */
export const MAX_ARROW_METADATA_BYTES = 1 << 20

/** The stream, checked: its rows in all batches. */
export type StreamCheck = { ok: true, rows: number }
  | { ok: false, reason: string, type: 'arrow' | 'too_long', column?: string }

class ShapeError extends Error {
  /** The column at fault, when one is. */
  column?: string
  constructor (message: string, readonly type: 'arrow' | 'too_long' = 'arrow') {
    super(message)
  }
}

/** The same error, naming its column. */
function about (column: string, err: unknown): unknown {
  if (err instanceof ShapeError && column !== '') err.column ??= column
  return err
}

const CONTINUATION = 0xffffffff
const FILE_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31] // ARROW1

// MessageHeader union
const HEADER_SCHEMA = 1
const HEADER_DICTIONARY_BATCH = 2
const HEADER_RECORD_BATCH = 3
const HEADER_NAMES = ['none', 'schema', 'dictionary batch', 'record batch', 'tensor', 'sparse tensor']
// MetadataVersion: V4 = 3, V5 = 4 (older versions lay buffers out differently)
const MIN_VERSION = 3
const MAX_VERSION = 4

/** Buffers per column and how the data buffer's size follows from the row count. */
interface ColumnShape {
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

/**
 * A FlatBuffers reader that refuses any read outside its bytes. Positions are absolute within
 * the metadata; a table is read through its vtable (a field past the vtable is absent).
 */
class Flat {
  readonly #view: DataView
  readonly #size: number

  constructor (bytes: Uint8Array) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.#size = bytes.byteLength
  }

  #need (at: number, bytes: number, what: string): void {
    if (!(at >= 0 && at + bytes <= this.#size)) {
      throw new ShapeError(`${what} at byte ${at} lies outside the ${this.#size}-byte metadata`)
    }
  }

  u8 (at: number, what: string): number { this.#need(at, 1, what); return this.#view.getUint8(at) }
  u16 (at: number, what: string): number { this.#need(at, 2, what); return this.#view.getUint16(at, true) }
  i16 (at: number, what: string): number { this.#need(at, 2, what); return this.#view.getInt16(at, true) }
  u32 (at: number, what: string): number { this.#need(at, 4, what); return this.#view.getUint32(at, true) }
  i32 (at: number, what: string): number { this.#need(at, 4, what); return this.#view.getInt32(at, true) }

  /** A non-negative int64 that a double holds exactly. */
  i64 (at: number, what: string): number {
    this.#need(at, 8, what)
    const lo = this.#view.getUint32(at, true)
    const hi = this.#view.getInt32(at + 4, true)
    if (hi < 0 || hi > 0x1fffff) throw new ShapeError(`${what} is ${hi < 0 ? 'negative' : 'too large'}`)
    return hi * 2 ** 32 + lo
  }

  /** The table whose offset is stored at `at` (the root: at 0). */
  table (at: number, what: string): number {
    const table = at + this.u32(at, what)
    // the vtable's place, relative to the table (signed), and its two sizes
    const vtable = table - this.i32(table, what)
    const vsize = this.u16(vtable, `${what}'s vtable`)
    const tsize = this.u16(vtable + 2, `${what}'s vtable`)
    if (vsize < 4 || vsize % 2 !== 0) throw new ShapeError(`${what}'s vtable has an impossible size ${vsize}`)
    this.#need(vtable, vsize, `${what}'s vtable`)
    this.#need(table, Math.max(4, tsize), what)
    return table
  }

  /** Where field `index` of a table lies, or −1 when absent. */
  field (table: number, index: number, bytes: number, what: string): number {
    const vtable = table - this.i32(table, what)
    const vsize = this.u16(vtable, what)
    const slot = 4 + 2 * index
    if (slot + 2 > vsize) return -1
    const offset = this.u16(vtable + slot, what)
    if (offset === 0) return -1
    const tsize = this.u16(vtable + 2, what)
    if (offset + bytes > tsize) throw new ShapeError(`${what} lies past its table's ${tsize} bytes`)
    return table + offset
  }

  /** A vector's element count and first element, each element `size` bytes, all inside the bytes. */
  vector (at: number, size: number, what: string): { count: number, start: number } {
    const vector = at + this.u32(at, what)
    const count = this.u32(vector, `${what}'s length`)
    const start = vector + 4
    if (count * size > this.#size - start) {
      throw new ShapeError(`${what} declares ${count} items; the metadata has room for ` +
        `${Math.max(0, Math.floor((this.#size - start) / size))}`)
    }
    return { count, start }
  }

  /** A string's text. */
  string (at: number, what: string): string {
    const { count, start } = this.vector(at, 1, what)
    return new TextDecoder().decode(new Uint8Array(this.#view.buffer, this.#view.byteOffset + start, count))
  }
}

/** Every key-value table of a custom_metadata vector is in bounds. */
function checkKeyValues (fb: Flat, table: number, index: number, what: string): void {
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

/** A scalar field, or its default when absent. */
function scalar (fb: Flat, table: number, index: number, kind: 'u8' | 'i16' | 'i32', fallback: number,
  what: string): number {
  const bytes = kind === 'u8' ? 1 : kind === 'i16' ? 2 : 4
  const at = fb.field(table, index, bytes, what)
  return at < 0 ? fallback : fb[kind](at, what)
}

/** Seconds, milliseconds, microseconds or nanoseconds (TimeUnit 0–3). */
function timeUnit (unit: number, label: string): void {
  if (unit < 0 || unit > 3) throw new ShapeError(`${label}: time unit ${unit}`)
}

/** One top-level field of the schema: a flat column, its buffers and sizes. */
function flatColumn (fb: Flat, field: number, k: number, name: string): ColumnShape {
  const label = name === '' ? `column ${k}` : `column ${JSON.stringify(name.slice(0, 64))}`
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

function checkSchema (fb: Flat, schema: number): ColumnShape[] {
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

/** A record batch's rows; its nodes and buffers match the columns and lie inside its body. */
function checkRecordBatch (fb: Flat, batch: number, columns: ColumnShape[], bodyLength: number): number {
  const rowsAt = fb.field(batch, 0, 8, 'the batch')
  const rows = rowsAt < 0 ? 0 : fb.i64(rowsAt, 'the batch\'s row count')
  if (fb.field(batch, 3, 4, 'the batch') >= 0) {
    throw new ShapeError('the batch is compressed; send an uncompressed stream')
  }
  const variadic = fb.field(batch, 4, 4, 'the batch')
  if (variadic >= 0 && fb.vector(variadic, 8, 'the batch\'s variadic buffer counts').count > 0) {
    throw new ShapeError('the batch declares variadic buffers, which no accepted column type has')
  }
  const nodesAt = fb.field(batch, 1, 4, 'the batch')
  const nodes = nodesAt < 0 ? { count: 0, start: 0 } : fb.vector(nodesAt, 16, 'the batch\'s field nodes')
  if (nodes.count !== columns.length) {
    throw new ShapeError(`the batch has ${nodes.count} field nodes for ${columns.length} columns`)
  }
  const buffersAt = fb.field(batch, 2, 4, 'the batch')
  const buffers = buffersAt < 0 ? { count: 0, start: 0 } : fb.vector(buffersAt, 16, 'the batch\'s buffers')
  const wanted = columns.reduce((sum, c) => sum + c.buffers, 0)
  if (buffers.count !== wanted) {
    throw new ShapeError(`the batch has ${buffers.count} buffers; its columns need ${wanted}`)
  }
  let b = 0
  for (let k = 0; k < columns.length; k++) {
    try {
      b = checkColumnData(fb, nodes.start + 16 * k, buffers.start, b, columns[k], k, rows, bodyLength)
    } catch (err) {
      throw about(columns[k].name, err)
    }
  }
  return rows
}

/** One column's node and buffers in a batch; the index of the next buffer. */
function checkColumnData (fb: Flat, node: number, buffersStart: number, first: number, column: ColumnShape,
  k: number, rows: number, bodyLength: number): number {
  const label = column.name === '' ? `column ${k}` : `column ${JSON.stringify(column.name.slice(0, 64))}`
  const length = fb.i64(node, `${label}'s length`)
  const nulls = fb.i64(node + 8, `${label}'s null count`)
  if (length !== rows) throw new ShapeError(`${label} has ${length} rows in a batch of ${rows}`)
  if (nulls > length) throw new ShapeError(`${label} declares ${nulls} nulls in ${length} rows`)
  let b = first
  for (let j = 0; j < column.buffers; j++, b++) {
    const at = buffersStart + 16 * b
    const offset = fb.i64(at, `buffer ${b}'s offset`)
    const size = fb.i64(at + 8, `buffer ${b}'s length`)
    if (offset + size > bodyLength) {
      throw new ShapeError(`buffer ${b} (${label}) spans bytes ${offset}–${offset + size} of a ${bodyLength}-byte body`)
    }
    // validity bitmap (read only with nulls), then offsets (variable width), then data
    const needed = j === 0
      ? (nulls > 0 ? Math.ceil(length / 8) : 0)
      : column.offsetWidth > 0 && j === 1
        ? (length + 1) * column.offsetWidth
        : column.width === 0 ? Math.ceil(length / 8) : column.width > 0 ? length * column.width : 0
    if (size < needed) throw new ShapeError(`buffer ${b} (${label}) has ${size} bytes; ${length} rows need ${needed}`)
  }
  return b
}

function startsWithFileMagic (bytes: Uint8Array): boolean {
  return bytes.length >= FILE_MAGIC.length && FILE_MAGIC.every((b, k) => bytes[k] === b)
}

/**
 * Checks a whole Arrow IPC stream: messages framed as received, one schema first, then record
 * batches (no dictionaries, compression or nested columns), at most `limits` batches and rows,
 * then the end (or the end-of-stream marker) and nothing after.
 */
export function checkArrowStream (bytes: Uint8Array, limits: ArrowStreamLimits): StreamCheck {
  if (startsWithFileMagic(bytes)) {
    return { ok: false, type: 'arrow', reason: 'This is the Arrow file format (ARROW1); send the IPC stream format ' +
      '(e.g. pyarrow.ipc.new_stream, RecordBatchStreamWriter)' }
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = 0
  let columns: ColumnShape[] | null = null
  let rows = 0
  let batches = 0
  let message = 0
  try {
    for (;;) {
      if (at === bytes.length) break // a stream may end without its end-of-stream marker
      if (at + 4 > bytes.length) throw new ShapeError(`the stream ends inside a message's length at byte ${at}`)
      let length = view.getUint32(at, true)
      at += 4
      if (length === CONTINUATION) {
        if (at + 4 > bytes.length) throw new ShapeError(`the stream ends inside a message's length at byte ${at}`)
        length = view.getUint32(at, true)
        at += 4
      }
      if (length === 0) {
        if (at !== bytes.length) throw new ShapeError(`${bytes.length - at} bytes follow the end-of-stream marker`)
        break
      }
      message++
      const where = `message ${message}`
      if (length > MAX_ARROW_METADATA_BYTES) {
        throw new ShapeError(`${where} declares ${length} bytes of metadata; at most ${MAX_ARROW_METADATA_BYTES} ` +
          'are accepted')
      }
      if (length > bytes.length - at) {
        throw new ShapeError(`${where} declares ${length} bytes of metadata; ${bytes.length - at} remain`)
      }
      const fb = new Flat(bytes.subarray(at, at + length))
      at += length
      const root = fb.table(0, `${where}`)
      const version = scalar(fb, root, 0, 'i16', 0, where)
      if (version < MIN_VERSION || version > MAX_VERSION) {
        throw new ShapeError(`${where} has metadata version ${version + 1}; versions 4 and 5 are accepted`)
      }
      const headerType = scalar(fb, root, 1, 'u8', 0, where)
      const headerAt = fb.field(root, 2, 4, where)
      const bodyAt = fb.field(root, 3, 8, where)
      const bodyLength = bodyAt < 0 ? 0 : fb.i64(bodyAt, `${where}'s body length`)
      checkKeyValues(fb, root, 4, `${where}'s metadata`)
      if (bodyLength > bytes.length - at) {
        throw new ShapeError(`${where} declares a ${bodyLength}-byte body; ${bytes.length - at} bytes remain`)
      }
      if (headerAt < 0) throw new ShapeError(`${where} has no header`)
      const header = fb.table(headerAt, `${where}'s header`)
      const kind = HEADER_NAMES[headerType] ?? `header type ${headerType}`
      if (columns === null) {
        if (headerType !== HEADER_SCHEMA) {
          throw new ShapeError(`${where} is a ${kind}; the stream must start with its schema`)
        }
        columns = checkSchema(fb, header)
      } else if (headerType === HEADER_RECORD_BATCH) {
        if (++batches > limits.maxBatches) {
          throw new ShapeError(`the stream has more than ${limits.maxBatches} record batches; send fewer, larger ones`,
            'too_long')
        }
        rows += checkRecordBatch(fb, header, columns, bodyLength)
        if (rows > limits.maxRows) throw new ShapeError(`At most ${limits.maxRows} points per request`, 'too_long')
      } else if (headerType === HEADER_DICTIONARY_BATCH) {
        throw new ShapeError(`${where} is a dictionary batch; dictionary-encoded columns are not accepted`)
      } else {
        throw new ShapeError(`${where} is a ${kind}; only record batches may follow the schema`)
      }
      at += bodyLength
    }
  } catch (err) {
    if (!(err instanceof ShapeError)) throw err
    return { ok: false, type: err.type, reason: err.type === 'too_long' ? err.message
      : `Not a usable Arrow IPC stream: ${err.message}`, ...(err.column !== undefined ? { column: err.column } : {}) }
  }
  if (columns === null) return { ok: false, type: 'arrow', reason: 'Not an Arrow IPC stream: it has no schema' }
  return { ok: true, rows }
}
