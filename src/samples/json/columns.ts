// The columns of a JSON samples answer as JSON arrays, straight from the typed arrays: numbers
// with the digits JSON.stringify writes (NaN → null), unit indices and statuses as bytes.
import { SAMPLE_STATUSES } from '../../contract/index.js'

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
