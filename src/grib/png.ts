// Template 5.41: the integers are the samples of a PNG image (gray 8/16 bits, or RGB/RGBA bytes
// for 24/32 bits), big-endian across channels, then scaled like simple packing.
// The images GRIB writers make (not interlaced) are decoded here, straight into the output: the
// IDAT chunks inflated by Node's zlib (native code, several times faster than inflating in
// JavaScript), then each row unfiltered in place and scaled while it is still in cache.
// Interlaced images, which no GRIB writer is known to make, go through fast-png.
import { inflateSync } from 'node:zlib'
import { decode as decodePng } from 'fast-png'
import { u32 } from './bytes.js'
import { GribError } from './errors.js'
import { scaleRow, unfilterRow } from './png-rows.js'
import { power } from './scaling.js'
import type { DataParams } from './section5.js'

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const IHDR = 0x49484452; const IDAT = 0x49444154; const IEND = 0x49454e44
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } // by colour type; 3 (palette): the indices
const DEPTHS = [1, 2, 4, 8, 16]

// The IDAT payloads joined, when an image has several (NCEP writes 8 KiB chunks). Reused across
// calls, one per worker thread.
let joined = new Uint8Array(0)

function corrupt (message: string): never { throw new GribError('corrupt_section', message) }

export function decode (p: DataParams, data: Uint8Array, out: Float32Array): void {
  const n = out.length
  if (p.bitsPerValue === 0) { out.fill(p.reference); return } // constant, as ecCodes
  // check the image header before anything is sized from it
  if (data.length < 33 || SIGNATURE.some((x, k) => data[k] !== x) || u32(data, 12) !== IHDR) {
    corrupt('section 7 of a 5.41 field does not start with a PNG header')
  }
  const width = u32(data, 16); const height = u32(data, 20)
  if (width * height !== n) corrupt(`PNG image is ${width}×${height}, section 5 says ${n} values`)
  const [depth, colourType, compression, filterMethod, interlace] = data.subarray(24, 29)
  if (interlace === 1) { viaFastPng(p, data, out); return }
  const channels = CHANNELS[colourType]
  if (u32(data, 8) !== 13 || channels === undefined || !DEPTHS.includes(depth) || compression !== 0 ||
    filterMethod !== 0 || interlace !== 0) {
    corrupt(`PNG header (depth ${depth}, colour type ${colourType}, methods ${compression}/${filterMethod}/` +
      `${interlace}) is not a valid image`)
  }
  if (depth * channels !== Math.ceil(p.bitsPerValue / 8) * 8 || depth < 8) {
    throw new GribError('unsupported_packing', `PNG of ${channels}×${depth} bits for ${p.bitsPerValue}-bit values`)
  }
  const bpp = depth * channels / 8 // bytes per pixel: one value, big-endian
  const stride = 1 + width * bpp // a filter-type byte, then the row
  const rows = inflate(idat(data), height * stride)

  const bs = power(p.binaryScale, 2)
  const ds = power(-p.decimalScale, 10)
  const R = p.reference
  for (let y = 0, at = 1; y < height; y++, at += stride) {
    unfilterRow(rows, at, y === 0 ? -1 : at - stride, stride - 1, bpp, rows[at - 1])
    scaleRow(rows, at, width, bpp, out, y * width, bs, R, ds)
  }
}

/** The zlib stream: the IDAT payloads in order, joined when there are several. */
function idat (data: Uint8Array): Uint8Array {
  const starts: number[] = []; const lengths: number[] = []
  let total = 0
  for (let o = 33; ; ) {
    if (o + 8 > data.length) corrupt('PNG stream ends before its IEND chunk')
    const len = u32(data, o); const type = u32(data, o + 4)
    if (o + 12 + len > data.length) corrupt(`PNG chunk of ${len} bytes runs past section 7`)
    if (type === IEND) break
    if (type === IDAT) { starts.push(o + 8); lengths.push(len); total += len }
    o += 12 + len // length, type, data, CRC
  }
  if (starts.length === 1) return data.subarray(starts[0], starts[0] + total)
  if (joined.length < total) joined = new Uint8Array(total)
  for (let k = 0, at = 0; k < starts.length; at += lengths[k], k++) {
    joined.set(data.subarray(starts[k], starts[k] + lengths[k]), at)
  }
  return joined.subarray(0, total)
}

/** Inflate to exactly `size` bytes (never more: the header's size bounds the allocation). */
function inflate (z: Uint8Array, size: number): Uint8Array {
  let rows: Uint8Array
  try {
    // one output chunk a byte larger than the image: no joining of 16 KiB pieces afterwards
    rows = inflateSync(z, { chunkSize: Math.max(64, size + 1), maxOutputLength: Math.max(1, size) })
  } catch (err) {
    corrupt(`PNG stream does not decode: ${(err as Error).message}`)
  }
  if (rows.length !== size) corrupt(`PNG stream inflates to ${rows.length} bytes, the image needs ${size}`)
  return rows
}

/** Any PNG fast-png reads (here: interlaced ones), through its general decoder. */
function viaFastPng (p: DataParams, data: Uint8Array, out: Float32Array): void {
  const n = out.length
  let image
  try {
    image = decodePng(data)
  } catch (err) {
    throw new GribError('corrupt_section', `PNG stream does not decode: ${(err as Error).message}`)
  }
  const { width, height, channels, depth } = image
  const samples = image.data
  if (width * height !== n) {
    throw new GribError('corrupt_section', `PNG image is ${width}×${height}, section 5 says ${n} values`)
  }
  if (depth * channels !== Math.ceil(p.bitsPerValue / 8) * 8 || depth < 8) {
    throw new GribError('unsupported_packing', `PNG of ${channels}×${depth} bits for ${p.bitsPerValue}-bit values`)
  }
  const bs = power(p.binaryScale, 2)
  const ds = power(-p.decimalScale, 10)
  const R = p.reference
  const base = 2 ** depth
  for (let i = 0, k = 0; i < n; i++) {
    let x = 0
    for (let c = 0; c < channels; c++) x = x * base + samples[k++]
    out[i] = (x * bs + R) * ds
  }
}
