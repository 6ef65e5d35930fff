// One dispatch on the data representation template, then the bitmap pass.
import { countSet, expand } from './bitmap.js'
import { decode as decodeComplex } from './complex.js'
import { GribError } from './errors.js'
import { decode as decodeJpeg2000 } from './jpeg2000.js'
import type { GribField } from './message.js'
import { dataParams } from './message.js'
import { decode as decodePng } from './png.js'
import { decode as decodeSimple } from './simple.js'

/**
 * Values of one field in the file's own scanning order, NaN where the bitmap (or the missing-value
 * management of 5.2/5.3) says missing. Written into `out` when given (its first
 * `grid.numberOfPoints` elements, e.g. a view into a SharedArrayBuffer), else into a new array.
 */
export function decodeField (bytes: Uint8Array, field: GribField, out?: Float32Array): Float32Array {
  const n = field.grid.numberOfPoints
  if (out !== undefined && out.length < n) {
    throw new GribError('bad_output', `output holds ${out.length} values, the field has ${n}`)
  }
  const target = out === undefined ? new Float32Array(n) : out.length === n ? out : out.subarray(0, n)
  const p = dataParams(bytes, field)
  const s = field.sections
  let coded = n
  if (s.bitmap >= 0) {
    coded = countSet(bytes.subarray(s.bitmap), n)
    if (coded !== p.numberOfValues) {
      throw new GribError('corrupt_section', `bitmap sets ${coded} points, section 5 says ${p.numberOfValues} values`,
        s.bitmap)
    }
  } else if (p.numberOfValues !== n) {
    throw new GribError('corrupt_section',
      `section 5 says ${p.numberOfValues} values for ${n} grid points and no bitmap`, s.drs + 5)
  }
  // packed values go to the tail, where the bitmap pass spreads them forward in place
  const packed = target.subarray(n - coded)
  const data = bytes.subarray(s.data, s.dataEnd)
  try {
    switch (p.template) {
      case 0: decodeSimple(p, data, packed); break
      case 2: case 3: decodeComplex(p, data, packed); break
      case 40: decodeJpeg2000(p, data, packed); break
      case 41: decodePng(p, data, packed); break
      default: throw new GribError('unsupported_packing', `data representation template 5.${p.template}`, s.drs + 9)
    }
  } catch (err) {
    // decoders work on a view of section 7; give the reader the field's byte offset
    if (err instanceof GribError && err.offset === undefined) {
      throw new GribError(err.reason, `${err.message} in field ${field.index}`, s.data)
    }
    throw err
  }
  if (s.bitmap >= 0) expand(bytes.subarray(s.bitmap), target, coded)
  return target
}
