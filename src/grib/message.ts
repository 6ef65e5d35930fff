// Index first, decode later: one pass over a buffer records every field's metadata and the
// offsets its decoder will need. No value is decoded here.
import { u32 } from './bytes.js'
import { GribError } from './errors.js'
import { readSection1 } from './section1.js'
import { readGrid } from './section3.js'
import { readProduct } from './section4.js'
import { readDataHeader, readDataRepresentation } from './section5.js'
import type { LatLonGrid } from './section3.js'
import type { Level } from './section4.js'
import { parameterName } from './tables.js'

export interface GribField {
  index: number // position among all fields of the buffer
  message: number // position of its message in the buffer
  fieldInMessage: number // 0 unless the message repeats sections 2-7, 3-7 or 4-7
  offset: number // byte offset of the message ('GRIB') in the buffer
  length: number // total length of the message
  discipline: number
  category: number
  number: number
  name: string // NCEP short name: HGT, TMP, UGRD, VGRD, SPFH, RH ...
  level: Level // isobaric (type 100) values are Pa
  level2: Level | null
  centre: number
  referenceTime: string // ISO 8601 UTC, 'YYYY-MM-DDTHH:MM:SSZ'
  stepHours: number
  stepEndHours: number
  productTemplate: number
  grid: LatLonGrid
  packing: number // data representation template number (5.x)
  bitsPerValue: number | null // null for a template aloft does not decode
  numberOfValues: number // values coded in section 7
  bitmapIndicator: number // section 6 octet 6 as written: 0, 254 or 255
  sections: {
    drs: number // offset of section 5
    drsLength: number
    bitmap: number // offset of the bitmap bytes in force (254 resolved to the earlier section 6), -1 if none
    data: number // offset of the first data byte of section 7
    dataEnd: number // offset just past section 7
  }
}

const G = 0x47; const R = 0x52; const I = 0x49; const B = 0x42

function findMarker (b: Uint8Array, from: number): number {
  let k = b.indexOf(G, from)
  while (k >= 0 && k + 3 < b.length) {
    if (b[k + 1] === R && b[k + 2] === I && b[k + 3] === B) return k
    k = b.indexOf(G, k + 1)
  }
  return -1
}

// Which section may follow which (GRIB2 regulation 92.1.2): after a data section the message
// either ends or repeats from section 2, 3 or 4 for another field.
const NEXT: Record<number, readonly number[]> = {
  0: [1], 1: [2, 3], 2: [3], 3: [4], 4: [5], 5: [6], 6: [7], 7: [2, 3, 4]
}

/** Index every GRIB2 field in `bytes`. Bytes before, between and after messages are skipped. */
export function scanMessages (bytes: Uint8Array): GribField[] {
  const fields: GribField[] = []
  let pos = 0
  let message = 0
  for (;;) {
    const start = findMarker(bytes, pos)
    if (start < 0) break
    if (start + 16 > bytes.length) throw new GribError('truncated', 'GRIB indicator section needs 16 bytes', start)
    const edition = bytes[start + 7]
    if (edition === 1) throw new GribError('edition_1', 'GRIB edition 1 message: aloft reads GRIB2 only', start)
    if (edition !== 2) {
      // the four letters inside junk (an HTML page, a log line) rather than a message
      pos = start + 1
      continue
    }
    const high = u32(bytes, start + 8)
    const length = u32(bytes, start + 12)
    if (high !== 0) {
      throw new GribError('bad_length', `message claims ${high * 2 ** 32 + length} bytes (over 4 GiB)`, start + 8)
    }
    if (length < 16 + 21 + 4) {
      throw new GribError('bad_length', `message claims ${length} bytes, less than any GRIB2 message`, start + 8)
    }
    if (start + length > bytes.length) {
      throw new GribError('truncated', `message claims ${length} bytes but ${bytes.length - start} remain`, start + 8)
    }
    const end = start + length - 4
    if (bytes[end] !== 0x37 || bytes[end + 1] !== 0x37 || bytes[end + 2] !== 0x37 || bytes[end + 3] !== 0x37) {
      throw new GribError('bad_length', `message length ${length} does not end on '7777'`, end)
    }
    scanSections(bytes, start, end, message, fields)
    message++
    pos = start + length
  }
  if (fields.length === 0) throw new GribError('not_grib', 'no GRIB message found', 0)
  return fields
}

/** What the sections read so far in one message hold: each data section (7) closes one field with them. */
interface MessageState {
  start: number
  end: number
  message: number
  discipline: number
  ident: { centre: number, referenceTime: string } | null
  grid: LatLonGrid | null
  product: ReturnType<typeof readProduct> | null
  drs: number
  drsLength: number
  params: ReturnType<typeof readDataHeader> | null
  bitmap: number
  bitmapIndicator: number
  /** The most recent explicit bitmap in this message, for indicator 254. */
  lastBitmap: number
  fieldInMessage: number
}

/** Walks one message's sections (`start`: its 'GRIB', `end`: its '7777'), in an order regulation 92.1.2 allows. */
function scanSections (b: Uint8Array, start: number, end: number, message: number, fields: GribField[]): void {
  const state: MessageState = {
    start, end, message, discipline: b[start + 6], ident: null, grid: null, product: null, drs: -1, drsLength: 0,
    params: null, bitmap: -1, bitmapIndicator: 255, lastBitmap: -1, fieldInMessage: 0
  }
  let last = 0
  let o = start + 16
  while (o < end) {
    if (o + 5 > end) throw new GribError('bad_length', `section header at ${o} runs past the end of the message`, o)
    const len = u32(b, o)
    const num = b[o + 4]
    if (len < 5 || o + len > end) {
      throw new GribError('bad_length', `section ${num} claims ${len} bytes; ${end - o} remain in the message`, o)
    }
    if (!NEXT[last].includes(num)) {
      throw new GribError('corrupt_section', `section ${num} cannot follow section ${last}`, o + 4)
    }
    switch (num) {
      case 1: state.ident = readSection1(b, o, len); break
      case 2: break // local use: nothing aloft reads
      case 3: state.grid = readGrid(b, o, len); break
      case 4: state.product = readProduct(b, o, len); break
      case 5: readDataSection(b, o, len, state); break
      case 6: readBitmapSection(b, o, len, state); break
      case 7: fields.push(fieldOf(state, fields.length, o, len)); break
      default:
        throw new GribError('corrupt_section', `section number ${num} is not a GRIB2 section`, o + 4)
    }
    last = num
    o += len
  }
  if (last !== 7) {
    throw new GribError('corrupt_section', `message ends after section ${last}, not after a data section`, end)
  }
}

/** Section 5: the data header (templates are checked when a field is decoded), and where it is. */
function readDataSection (b: Uint8Array, o: number, len: number, state: MessageState): void {
  const params = readDataHeader(b, o, len)
  state.params = params
  state.drs = o; state.drsLength = len
  if (state.grid !== null && params.numberOfValues > state.grid.numberOfPoints) {
    throw new GribError('corrupt_section',
      `section 5 codes ${params.numberOfValues} values on a grid of ${state.grid.numberOfPoints} points`, o + 5)
  }
}

/** Section 6: the bitmap in force — its own (0), the message's last one (254) or none (255). */
function readBitmapSection (b: Uint8Array, o: number, len: number, state: MessageState): void {
  if (len < 6) throw new GribError('bad_length', 'section 6 is shorter than 6 bytes', o)
  const indicator = b[o + 5]
  state.bitmapIndicator = indicator
  if (indicator === 0) {
    const needed = Math.ceil((state.grid as LatLonGrid).numberOfPoints / 8)
    if (len - 6 < needed) {
      throw new GribError('bad_length', `bitmap holds ${len - 6} bytes, the grid needs ${needed}`, o)
    }
    state.bitmap = state.lastBitmap = o + 6
  } else if (indicator === 254) {
    if (state.lastBitmap < 0) {
      throw new GribError('corrupt_section',
        'bitmap indicator 254 (reuse) with no earlier bitmap in the message', o + 5)
    }
    state.bitmap = state.lastBitmap
  } else if (indicator === 255) {
    state.bitmap = -1
  } else {
    throw new GribError('corrupt_section',
      `bitmap indicator ${indicator}: predefined bitmaps are not supported`, o + 5)
  }
}

/** The field a data section (at `o`, `len` bytes) closes, from the sections in force. */
function fieldOf (state: MessageState, index: number, o: number, len: number): GribField {
  const id = state.ident as { centre: number, referenceTime: string }
  const p = state.product as NonNullable<MessageState['product']>
  const d = state.params as NonNullable<MessageState['params']>
  return {
    index,
    message: state.message,
    fieldInMessage: state.fieldInMessage++,
    offset: state.start,
    length: state.end + 4 - state.start,
    discipline: state.discipline,
    category: p.category,
    number: p.number,
    name: parameterName(state.discipline, p.category, p.number),
    level: p.level,
    level2: p.level2,
    centre: id.centre,
    referenceTime: id.referenceTime,
    stepHours: p.stepHours,
    stepEndHours: p.stepEndHours,
    productTemplate: p.template,
    grid: state.grid as LatLonGrid,
    packing: d.template,
    bitsPerValue: d.bitsPerValue,
    numberOfValues: d.numberOfValues,
    bitmapIndicator: state.bitmapIndicator,
    sections: { drs: state.drs, drsLength: state.drsLength, bitmap: state.bitmap, data: o + 5, dataEnd: o + len }
  }
}

/** Section 5 of a field as a record (for decoders, and for tools that print packing details). */
export function dataParams (bytes: Uint8Array, field: GribField): ReturnType<typeof readDataRepresentation> {
  return readDataRepresentation(bytes, field.sections.drs, field.sections.drsLength)
}

