// A small GRIB2 writer for the local upstream's grib filter: it re-encodes a cut-out of a field
// with simple packing (template 5.0), as NOMADS repacks sub-regions. Sections 1 and 4 are copied
// from the source message; section 3 is the source's grid template 3.0 with the new extent.
import { decodeField, indexOf, type GribField } from '../grib/index.js'

export interface Box {
  bottomlat: number
  toplat: number
  leftlon: number
  rightlon: number
}

/** Offsets of the sections (1..7) in force for `field`, found by walking its message. */
function sectionsOf (bytes: Uint8Array, field: GribField): Map<number, { offset: number, length: number }> {
  const found = new Map<number, { offset: number, length: number }>()
  const end = field.offset + field.length - 4
  let o = field.offset + 16
  while (o < end && o <= field.sections.drs) {
    const len = readU32(bytes, o)
    found.set(bytes[o + 4], { offset: o, length: len })
    o += len
  }
  return found
}

function readU32 (b: Uint8Array, o: number): number {
  return b[o] * 0x1000000 + b[o + 1] * 0x10000 + b[o + 2] * 0x100 + b[o + 3]
}

function writeU32 (b: Uint8Array, o: number, v: number): void {
  b[o] = Math.floor(v / 0x1000000) & 0xff
  b[o + 1] = (v >>> 16) & 0xff
  b[o + 2] = (v >>> 8) & 0xff
  b[o + 3] = v & 0xff
}

/** GRIB2 signed integers are sign and magnitude. */
function writeS32 (b: Uint8Array, o: number, v: number): void {
  writeU32(b, o, Math.abs(v))
  if (v < 0) b[o] |= 0x80
}

function writeS16 (b: Uint8Array, o: number, v: number): void {
  const m = Math.abs(v)
  b[o] = ((m >> 8) & 0x7f) | (v < 0 ? 0x80 : 0); b[o + 1] = m & 0xff
}

const microDegrees = (deg: number): number => Math.round(deg * 1e6)
const lon360 = (lon: number): number => ((lon % 360) + 360) % 360

/** Columns and rows of `field`'s grid inside the box (inclusive edges), west to east, south to north. */
export function boxIndices (field: GribField, box: Box): { cols: number[], rows: number[] } {
  const g = field.grid
  const eps = 1e-6
  const rows: number[] = []
  for (let j = 0; j < g.nj; j++) {
    const lat = g.south + j * g.dj
    if (lat >= box.bottomlat - eps && lat <= box.toplat + eps) rows.push(j)
  }
  const left = lon360(box.leftlon)
  let span = box.rightlon - box.leftlon
  if (span < 0) span += 360
  const cols: Array<{ i: number, east: number }> = []
  for (let i = 0; i < g.ni; i++) {
    const east = lon360(g.west + i * g.di - left) // how far east of the left edge
    if (east <= span + eps || east >= 360 - eps) cols.push({ i, east: east >= 360 - eps ? 0 : east })
  }
  cols.sort((a, b) => a.east - b.east)
  return { cols: cols.map((c) => c.i), rows }
}

/**
 * Simple packing parameters: keep the source's decimal and binary scale, fit the bits. A constant
 * cut is written with 0 bits, R = the value and D = E = 0, because readers (ecCodes, ours) return
 * R unscaled for 0-bit fields.
 */
export function packSimple (values: Float32Array, decimalScale: number, binaryScale: number): { reference: number,
  bits: number, data: Uint8Array, coded: number, decimalScale: number, binaryScale: number } {
  let min = Infinity
  let max = -Infinity
  let coded = 0
  const d = 10 ** decimalScale
  for (let k = 0; k < values.length; k++) {
    const v = values[k]
    if (Number.isNaN(v)) continue
    coded++
    if (v * d < min) min = v * d
    if (v * d > max) max = v * d
  }
  if (coded === 0) return { reference: 0, bits: 0, data: new Uint8Array(0), coded, decimalScale: 0, binaryScale: 0 }
  // R is stored as float32 and must not exceed the smallest scaled value
  let reference = Math.fround(min)
  while (reference > min) reference = Math.fround(reference - Math.max(Math.abs(reference) * 2 ** -23, 2 ** -149))
  const e = 2 ** binaryScale
  const maxX = Math.round((max - reference) / e)
  if (maxX === 0) {
    const first = values.find((v) => !Number.isNaN(v)) as number
    return { reference: Math.fround(first), bits: 0, data: new Uint8Array(0), coded, decimalScale: 0, binaryScale: 0 }
  }
  const bits = Math.ceil(Math.log2(maxX + 1))
  const data = new Uint8Array(Math.ceil(coded * bits / 8))
  if (bits > 0) {
    let acc = 0; let have = 0; let o = 0
    for (let k = 0; k < values.length; k++) {
      const v = values[k]
      if (Number.isNaN(v)) continue
      const x = Math.min(maxX, Math.max(0, Math.round((v * d - reference) / e)))
      // emit `bits` bits MSB first through a byte accumulator (bits <= 32)
      for (let b = bits - 1; b >= 0; b--) {
        acc = (acc << 1) | (Math.floor(x / 2 ** b) & 1)
        if (++have === 8) { data[o++] = acc; acc = 0; have = 0 }
      }
    }
    if (have > 0) data[o] = acc << (8 - have)
  }
  return { reference, bits, data, coded, decimalScale, binaryScale }
}

/**
 * One GRIB2 message holding `field` cut to `box`, rows south to north (scanning mode 64), with
 * a bitmap when a cut value is missing. null when the box holds none of the field's points.
 */
export function cutField (bytes: Uint8Array, field: GribField, box: Box): Uint8Array | null {
  const { cols, rows } = boxIndices(field, box)
  if (cols.length === 0 || rows.length === 0) return null
  const all = decodeField(bytes, field)
  const ni = cols.length
  const nj = rows.length
  const values = new Float32Array(ni * nj)
  let missing = false
  for (let jj = 0; jj < nj; jj++) {
    for (let ii = 0; ii < ni; ii++) {
      const v = all[indexOf(field.grid, cols[ii], rows[jj])]
      values[jj * ni + ii] = v
      if (Number.isNaN(v)) missing = true
    }
  }
  const sec = sectionsOf(bytes, field)
  const s1 = sec.get(1)!; const s3 = sec.get(3)!; const s4 = sec.get(4)!
  const drs = field.sections.drs
  const decimalScale = (bytes[drs + 17] & 0x80 ? -1 : 1) * (((bytes[drs + 17] & 0x7f) << 8) | bytes[drs + 18])
  const binaryScale = (bytes[drs + 15] & 0x80 ? -1 : 1) * (((bytes[drs + 15] & 0x7f) << 8) | bytes[drs + 16])
  const packed = packSimple(values, decimalScale, binaryScale)

  const g = field.grid
  const grid = bytes.slice(s3.offset, s3.offset + 72)
  writeU32(grid, 0, 72)
  writeU32(grid, 6, ni * nj)
  writeU32(grid, 30, ni)
  writeU32(grid, 34, nj)
  writeS32(grid, 46, microDegrees(g.south + rows[0] * g.dj))
  writeS32(grid, 50, microDegrees(lon360(g.west + cols[0] * g.di)))
  writeS32(grid, 55, microDegrees(g.south + rows[nj - 1] * g.dj))
  writeS32(grid, 59, microDegrees(lon360(g.west + cols[ni - 1] * g.di)))
  grid[71] = 0x40

  const drsOut = new Uint8Array(21)
  writeU32(drsOut, 0, 21); drsOut[4] = 5
  writeU32(drsOut, 5, packed.coded)
  drsOut[9] = 0; drsOut[10] = 0 // template 5.0
  new DataView(drsOut.buffer).setFloat32(11, packed.reference)
  writeS16(drsOut, 15, packed.binaryScale)
  writeS16(drsOut, 17, packed.decimalScale)
  drsOut[19] = packed.bits
  drsOut[20] = 0 // original values were floating point

  const bitmapBytes = missing ? Math.ceil(ni * nj / 8) : 0
  const bitmap = new Uint8Array(6 + bitmapBytes)
  writeU32(bitmap, 0, bitmap.length); bitmap[4] = 6; bitmap[5] = missing ? 0 : 255
  if (missing) {
    for (let k = 0; k < values.length; k++) if (!Number.isNaN(values[k])) bitmap[6 + (k >> 3)] |= 0x80 >> (k & 7)
  }

  const data = new Uint8Array(5 + packed.data.length)
  writeU32(data, 0, data.length); data[4] = 7; data.set(packed.data, 5)

  const parts = [bytes.subarray(s1.offset, s1.offset + s1.length), grid,
    bytes.subarray(s4.offset, s4.offset + s4.length), drsOut, bitmap, data]
  const total = 16 + parts.reduce((n, p) => n + p.length, 0) + 4
  const out = new Uint8Array(total)
  out.set([0x47, 0x52, 0x49, 0x42, 0, 0, field.discipline, 2], 0)
  writeU32(out, 8, 0); writeU32(out, 12, total)
  let o = 16
  for (const p of parts) { out.set(p, o); o += p.length }
  out.set([0x37, 0x37, 0x37, 0x37], o)
  return out
}
