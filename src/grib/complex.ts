// Templates 5.2 (complex packing) and 5.3 (complex packing with spatial differencing), in the
// order ecCodes' data_g22order_packing decodes them, so results match it exactly:
//   [5.3 extra descriptors][NG group references][NG group widths][NG group lengths][values]
// each part starting on a byte boundary; missing values (management 1/2) become NaN.
import { BitReader, bytesFor, sN, uN } from './bytes.js'
import { GribError } from './errors.js'
import { power } from './scaling.js'
import type { DataParams } from './section5.js'

// Integer values before scaling. Reused across calls (one per worker thread): a 0.25° field is
// 1M values, and allocating 8 MB per decode would dominate small files.
let scratch = new Float64Array(0)

function fail (message: string): never { throw new GribError('corrupt_section', message) }

export function decode (p: DataParams, data: Uint8Array, out: Float32Array): void {
  const n = out.length
  const ng = p.groups
  const order = p.spatialOrder
  const nbits = p.bitsPerValue
  const mvm = p.missingManagement
  // order 0 in a 5.3 section means no differencing (ecCodes reads it so; ecCodes 2.28 writes it)
  if (order > 2) {
    throw new GribError('unsupported_packing', `spatial differencing of order ${order} (code table 5.6: 1 or 2)`)
  }
  if (mvm > 2) throw new GribError('unsupported_packing', `missing value management ${mvm} (code table 5.5: 0, 1 or 2)`)
  if (nbits > 32 || p.groupWidthBits > 32 || p.groupLengthBits > 32) {
    throw new GribError('unsupported_packing',
      `complex packing with ${nbits}/${p.groupWidthBits}/${p.groupLengthBits}-bit fields (at most 32)`)
  }
  const extra = p.template === 3 ? p.extraOctets : 0
  if (extra > 6) {
    throw new GribError('unsupported_packing', `${extra}-octet spatial differencing descriptors (at most 6)`)
  }
  if (ng > n) fail(`${ng} groups for ${n} values`)
  const bs = power(p.binaryScale, 2)
  const ds = power(-p.decimalScale, 10)
  const R = p.reference
  if (ng === 0) {
    // No groups: a constant field (NCEP's 2011 encoder wrote empty 0-bit fields so, with no
    // descriptors in section 7). ecCodes 2.28 reads the descriptors anyway, past the section
    // end into the '7777' marker; aloft does not read outside the section.
    out.fill((0 * bs + R) * ds)
    return
  }

  // byte offsets of the four parts; each must fit in section 7 before anything is read
  const refsAt = order === 0 ? 0 : (order + 1) * extra
  const widthsAt = refsAt + bytesFor(ng, nbits)
  const lengthsAt = widthsAt + bytesFor(ng, p.groupWidthBits)
  const valuesAt = lengthsAt + bytesFor(ng, p.groupLengthBits)
  if (valuesAt > data.length) {
    throw new GribError('truncated', `complex packing descriptors need ${valuesAt} bytes, section 7 has ${data.length}`)
  }
  const valueBits = (data.length - valuesAt) * 8

  if (scratch.length < n) scratch = new Float64Array(n)
  const v = scratch
  const refs = new BitReader(data, refsAt)
  const widths = new BitReader(data, widthsAt)
  const lengths = new BitReader(data, lengthsAt)
  const allOnes = 2 ** nbits - 1
  // The value cursor is kept in locals (not a BitReader): this loop runs once per grid point and
  // is most of the decode time on 0.25° fields.
  let pos = valuesAt; let acc = 0; let have = 0
  let used = 0 // bits consumed from the values part
  let count = 0
  for (let g = 0; g < ng; g++) {
    const ref = refs.read(nbits)
    const width = widths.read(p.groupWidthBits) + p.groupWidthReference
    let len = lengths.read(p.groupLengthBits) * p.groupLengthIncrement + p.groupLengthReference
    if (g === ng - 1) len = p.lastGroupLength
    if (count + len > n) fail(`group ${g} of length ${len} runs past ${n} values`)
    if (width > 32) throw new GribError('unsupported_packing', `group ${g} is ${width} bits wide (at most 32)`)
    used += len * width
    if (used > valueBits) {
      throw new GribError('truncated', `group ${g} needs ${used} value bits, section 7 holds ${valueBits}`)
    }
    const end = count + len
    if (width === 0) {
      // every value of the group is its reference; with missing management, a reference of all
      // ones (primary) or all ones minus one (secondary) marks the whole group missing
      const missing = mvm !== 0 && (ref === allOnes || (mvm === 2 && ref === allOnes - 1))
      v.fill(missing ? NaN : ref, count, end)
      count = end
      continue
    }
    const max = mvm === 0 ? -1 : 2 ** width - 1 // -1: no value is "missing" without management
    const max2 = mvm === 2 ? max - 1 : -1
    if (width <= 24 && mvm === 0) {
      const mask = (1 << width) - 1
      for (; count < end; count++) {
        while (have < width) { acc = ((acc << 8) | data[pos++]) >>> 0; have += 8 }
        have -= width
        v[count] = ref + ((acc >>> have) & mask)
        acc &= (1 << have) - 1
      }
    } else if (width <= 24) {
      const mask = (1 << width) - 1
      for (; count < end; count++) {
        while (have < width) { acc = ((acc << 8) | data[pos++]) >>> 0; have += 8 }
        have -= width
        const x = (acc >>> have) & mask
        acc &= (1 << have) - 1
        v[count] = x === max || x === max2 ? NaN : ref + x
      }
    } else {
      for (; count < end; count++) {
        // 25..32 bits: two reads of at most 16, joined in floating point (no 32-bit overflow)
        let x = 0
        for (let part = width - 16; part > 0; part = part === 16 ? 0 : 16) {
          while (have < part) { acc = ((acc << 8) | data[pos++]) >>> 0; have += 8 }
          have -= part
          x = x * (2 ** part) + ((acc >>> have) & ((1 << part) - 1))
          acc &= (1 << have) - 1
        }
        v[count] = x === max || x === max2 ? NaN : ref + x
      }
    }
  }
  if (count !== n) fail(`groups hold ${count} values, section 5 says ${n}`)

  if (order > 0 && mvm === 0) {
    undifferenceAndScale(v, n, order, data, extra, bs, R, ds, out)
    return
  }
  if (order > 0) undifference(v, n, order, data, extra)
  for (let i = 0; i < n; i++) out[i] = (v[i] * bs + R) * ds // NaN stays NaN
}

/** The common case (no missing values): undo differencing and scale in one pass. */
function undifferenceAndScale (v: Float64Array, n: number, order: number, data: Uint8Array, extra: number,
  bs: number, R: number, ds: number, out: Float32Array): void {
  const first = uN(data, 0, extra)
  const bias = sN(data, order * extra, extra)
  if (n === 0) return
  out[0] = (first * bs + R) * ds
  if (order === 1) {
    let last = first
    for (let j = 1; j < n; j++) {
      last = v[j] + last + bias
      out[j] = (last * bs + R) * ds
    }
    return
  }
  if (n === 1) return
  const second = uN(data, extra, extra)
  out[1] = (second * bs + R) * ds
  let penultimate = first
  let last = second
  for (let j = 2; j < n; j++) {
    const x = v[j] + bias + last + last - penultimate
    penultimate = last
    last = x
    out[j] = (x * bs + R) * ds
  }
}

/** Undo spatial differencing over the non-missing values (ecCodes post_process). */
function undifference (v: Float64Array, n: number, order: number, data: Uint8Array, extra: number): void {
  const first = uN(data, 0, extra)
  const second = order === 2 ? uN(data, extra, extra) : 0
  const bias = sN(data, order * extra, extra)
  let j = 0
  while (j < n && Number.isNaN(v[j])) j++
  if (j < n) v[j++] = first
  if (order === 1) {
    let last = first
    for (; j < n; j++) {
      if (Number.isNaN(v[j])) continue
      last = v[j] += last + bias
    }
    return
  }
  while (j < n && Number.isNaN(v[j])) j++
  if (j < n) v[j++] = second
  let penultimate = first
  let last = second
  for (; j < n; j++) {
    if (Number.isNaN(v[j])) continue
    const x = v[j] + bias + last + last - penultimate
    penultimate = last
    last = v[j] = x
  }
}
