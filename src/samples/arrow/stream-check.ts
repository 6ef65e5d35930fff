// An Arrow IPC stream's metadata checked against the bytes actually received, before apache-arrow
// reads it. apache-arrow trusts every count and length in the stream: a vector length of 2·10⁹
// makes it loop and allocate until the process dies, and a buffer declared longer than the body
// becomes a view the request's own bytes do not fill. Here each FlatBuffers table, vector and
// string is bounds-checked, every record batch's nodes and buffers are matched against the
// schema and lie inside the message body, and the stream is limited to flat columns, a bounded
// number of batches and rows. What passes costs apache-arrow time and memory linear in the body.
//
// Layouts: Arrow's Message.fbs and Schema.fbs (format version 4 and 5, little-endian).
import { checkRecordBatch } from './batch-check.js'
import { checkKeyValues, checkSchema, type ColumnShape } from './schema-check.js'
import { Flat, ShapeError, scalar } from './flatbuffers.js'
import { tooManyPoints } from '../request.js'

/** What a request stream may hold. */
export interface ArrowStreamLimits {
  /** Rows in all record batches together. */
  maxRows: number
  /** Record batches. */
  maxBatches: number
}

/** The FlatBuffers metadata of one message, in bytes (a schema with pandas metadata is a few KB). */
export const MAX_ARROW_METADATA_BYTES = 1 << 20

/** The stream, checked: its rows in all batches. */
export type StreamCheck = { ok: true, rows: number }
  | { ok: false, reason: string, type: 'arrow' | 'too_long', column?: string }

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
        if (rows > limits.maxRows) throw new ShapeError(tooManyPoints(limits.maxRows), 'too_long')
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
