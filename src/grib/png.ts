// Template 5.41: the integers are the samples of a PNG image (gray 8/16 bits, or RGB/RGBA bytes
// for 24/32 bits), big-endian across channels, then scaled like simple packing.
import { decode as decodePng } from 'fast-png'
import { u32 } from './bytes.js'
import { GribError } from './errors.js'
import { power } from './scaling.js'
import type { DataParams } from './section5.js'

export function decode (p: DataParams, data: Uint8Array, out: Float32Array): void {
  const n = out.length
  if (p.bitsPerValue === 0) { out.fill(p.reference); return } // constant, as ecCodes
  // check the image header before fast-png sizes its buffers from it
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (data.length < 33 || sig.some((x, k) => data[k] !== x) || u32(data, 12) !== 0x49484452) {
    throw new GribError('corrupt_section', 'section 7 of a 5.41 field does not start with a PNG header')
  }
  if (u32(data, 16) * u32(data, 20) !== n) {
    throw new GribError('corrupt_section', `PNG image is ${u32(data, 16)}×${u32(data, 20)}, section 5 says ${n} values`)
  }
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
  if (channels === 1) {
    for (let i = 0; i < n; i++) out[i] = (samples[i] * bs + R) * ds
    return
  }
  const base = 2 ** depth
  for (let i = 0, k = 0; i < n; i++) {
    let x = 0
    for (let c = 0; c < channels; c++) x = x * base + samples[k++]
    out[i] = (x * bs + R) * ds
  }
}
