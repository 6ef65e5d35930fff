// Finds the numbers an attacker would change in an Arrow IPC stream: each message's framing and,
// in record batches, the row count, the node and buffer vectors' lengths and every buffer's
// offset and length. Written for the tests, apart from the service's own stream check, so the two
// do not share a mistake.
import { Table, Timestamp, TimeUnit, makeVector, tableToIPC, vectorFromArray } from 'apache-arrow'

export interface MessageSpots {
  /** Offset of the metadata's length word (after the continuation marker). */
  lengthAt: number
  metadataStart: number
  metadataLength: number
  bodyStart: number
  bodyLength: number
  /** 1 schema, 2 dictionary batch, 3 record batch. */
  headerType: number
  /** Absolute offsets of fields worth corrupting (record batches; a dictionary batch's own batch's row count). */
  rowsAt?: number
  bodyLengthAt?: number
  nodesCountAt?: number
  buffersCountAt?: number
  /** [offset position, length position] per buffer. */
  buffers?: Array<[number, number]>
}

function u32 (b: Uint8Array, at: number): number {
  return new DataView(b.buffer, b.byteOffset).getUint32(at, true)
}

/** Where field `index` of the table at `table` sits (absolute), or −1. */
function fieldAt (b: Uint8Array, table: number, index: number): number {
  const vtable = table - new DataView(b.buffer, b.byteOffset).getInt32(table, true)
  const vsize = new DataView(b.buffer, b.byteOffset).getUint16(vtable, true)
  if (4 + 2 * index + 2 > vsize) return -1
  const offset = new DataView(b.buffer, b.byteOffset).getUint16(vtable + 4 + 2 * index, true)
  return offset === 0 ? -1 : table + offset
}

/** Every message of a (well-formed) stream, with the spots of its record batches. */
export function messagesOf (stream: Uint8Array): MessageSpots[] {
  const out: MessageSpots[] = []
  let at = 0
  while (at + 8 <= stream.length) {
    if (u32(stream, at) !== 0xffffffff) throw new Error('expected a continuation marker')
    const lengthAt = at + 4
    const metadataLength = u32(stream, lengthAt)
    if (metadataLength === 0) break
    const start = lengthAt + 4
    const root = start + u32(stream, start)
    const headerType = stream[fieldAt(stream, root, 1)]
    const bodyLengthAt = fieldAt(stream, root, 3)
    const bodyLength = bodyLengthAt < 0 ? 0 : u32(stream, bodyLengthAt)
    const spots: MessageSpots = {
      lengthAt, metadataStart: start, metadataLength, bodyStart: start + metadataLength, bodyLength, headerType,
      ...(bodyLengthAt >= 0 ? { bodyLengthAt } : {})
    }
    if (headerType === 2) {
      const headerField = fieldAt(stream, root, 2)
      const dictionary = headerField + u32(stream, headerField)
      const dataField = fieldAt(stream, dictionary, 1)
      spots.rowsAt = fieldAt(stream, dataField + u32(stream, dataField), 0)
    }
    if (headerType === 3) {
      const headerField = fieldAt(stream, root, 2)
      const batch = headerField + u32(stream, headerField)
      spots.rowsAt = fieldAt(stream, batch, 0)
      const nodesField = fieldAt(stream, batch, 1)
      spots.nodesCountAt = nodesField + u32(stream, nodesField)
      const buffersField = fieldAt(stream, batch, 2)
      spots.buffersCountAt = buffersField + u32(stream, buffersField)
      const count = u32(stream, spots.buffersCountAt)
      spots.buffers = Array.from({ length: count }, (_, k) => {
        const buffer = spots.buffersCountAt! + 4 + 16 * k
        return [buffer, buffer + 8] as [number, number]
      })
    }
    out.push(spots)
    at = start + metadataLength + bodyLength
  }
  return out
}

/** A copy with a little-endian uint32 written at `at`. */
export function withU32 (stream: Uint8Array, at: number, value: number): Uint8Array {
  const copy = stream.slice()
  new DataView(copy.buffer).setUint32(at, value >>> 0, true)
  return copy
}

/** A copy with a little-endian int64 (from a double) written at `at`. */
export function withI64 (stream: Uint8Array, at: number, value: number): Uint8Array {
  const copy = stream.slice()
  new DataView(copy.buffer).setBigInt64(at, BigInt(Math.trunc(value)), true)
  return copy
}

/** A valid samples request stream of `n` points over the bundled data (Warsaw region, 2020-08-04). */
export function samplesStream (n: number, batches = 1): Uint8Array {
  const start = Date.parse('2020-08-04T12:00:00Z')
  const make = (from: number, count: number): Table => new Table({
    latitude: makeVector(Float64Array.from({ length: count }, (_, k) => 50 + ((from + k) % 300) * 0.01)),
    longitude: makeVector(Float64Array.from({ length: count }, (_, k) => 15 + ((from + k) % 500) * 0.01)),
    altitude_m: makeVector(Float64Array.from({ length: count }, (_, k) => 500 + ((from + k) % 90) * 100)),
    time: vectorFromArray(Array.from({ length: count }, (_, k) => new Date(start + ((from + k) % 700) * 60_000)),
      new Timestamp(TimeUnit.MILLISECOND, 'UTC'))
  })
  if (batches === 1) return tableToIPC(make(0, n), 'stream')
  const size = Math.ceil(n / batches)
  let table = make(0, Math.min(size, n))
  for (let from = size; from < n; from += size) table = table.concat(make(from, Math.min(size, n - from)))
  return tableToIPC(table, 'stream')
}
