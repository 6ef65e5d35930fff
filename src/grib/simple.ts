// Template 5.0 simple packing: `numberOfValues` unsigned integers of `bitsPerValue` bits.
import { BitReader, bytesFor } from './bytes.js'
import { GribError } from './errors.js'
import { power } from './scaling.js'
import type { DataParams } from './section5.js'

/** Decode section 7 payload `data` into `out` (length = values coded, before the bitmap pass). */
export function decode (p: DataParams, data: Uint8Array, out: Float32Array): void {
  const n = out.length
  const bits = p.bitsPerValue
  const R = p.reference
  if (bits === 0) {
    out.fill(R) // a constant field; ecCodes returns R itself here (no decimal scaling), and so do we
    return
  }
  if (bits > 32) throw new GribError('unsupported_packing', `simple packing with ${bits} bits per value (at most 32)`)
  if (bytesFor(n, bits) > data.length) {
    throw new GribError('truncated',
      `simple packing needs ${bytesFor(n, bits)} data bytes for ${n} values of ${bits} bits, ` +
      `section 7 has ${data.length}`)
  }
  const bs = power(p.binaryScale, 2)
  const ds = power(-p.decimalScale, 10)
  if (bits === 8) {
    for (let i = 0; i < n; i++) out[i] = (data[i] * bs + R) * ds
  } else if (bits === 16) {
    for (let i = 0, k = 0; i < n; i++, k += 2) out[i] = ((data[k] * 256 + data[k + 1]) * bs + R) * ds
  } else {
    const r = new BitReader(data, 0)
    for (let i = 0; i < n; i++) out[i] = (r.read(bits) * bs + R) * ds
  }
}
