// The value loops of templates 5.2/5.3 (complex.ts unpacks and checks the group descriptors
// first, so nothing here reads outside section 7 or past the grid).
// Spatial differencing is undone in ecCodes' order with the same double arithmetic as before
// this split, so every value is bit for bit what it was (and what ecCodes gives).
import { sN, uN } from './bytes.js'

/** True references, widths (≤ 32) and lengths of `count` groups. */
export interface Groups { refs: Uint32Array, widths: Uint32Array, lengths: Uint32Array, count: number }

// Integers before scaling, for the general path. Reused across calls (one per worker thread): a
// 0.25° field is 1M values, and allocating 8 MB per decode would dominate small files.
let scratch = new Float64Array(0)

/**
 * The common case in one pass, straight into `out`: no missing values, spatial differencing of
 * order 1 or 2, groups at most 24 bits wide. Reads the bits, undoes the differencing and scales.
 */
export function differenced (groups: Groups, data: Uint8Array, view: DataView, valuesAt: number, order: number,
  extra: number, bs: number, R: number, ds: number, out: Float32Array): void {
  const { refs, widths, lengths, count: ng } = groups
  const n = out.length
  const first = uN(data, 0, extra)
  const second = order === 2 ? uN(data, extra, extra) : 0
  const bias = sN(data, order * extra, extra)
  // The first `order` values are the descriptors' own; their packed bits are skipped.
  out[0] = (first * bs + R) * ds
  if (order === 2 && n > 1) out[1] = (second * bs + R) * ds
  if (n <= order) return
  let g = 0
  let next = 0 // index of group g's first value
  let bit = 0 // offset of group g's first value in the values part
  while (next + lengths[g] <= order) { next += lengths[g]; bit += lengths[g] * widths[g]; g++ }
  bit += (order - next) * widths[g]
  // The cursor: byte `pos` and bit `off` (0..7) in it. Each value is cut from the big-endian
  // 32-bit word at `pos` (`view` reaches 4 bytes past section 7, see paddedView): no branch per
  // value, where reading byte by byte mispredicts on most of them.
  let pos = valuesAt + Math.floor(bit / 8)
  let off = bit % 8
  let i = order
  if (order === 1) {
    let last = first
    for (; g < ng; g++) {
      const ref = refs[g]; const width = widths[g]; const shift = 31 - width // then 1: 0 bits give 0
      const end = next + lengths[g]
      next = end
      for (; i < end; i++) {
        const x = ((view.getUint32(pos) << off) >>> shift) >>> 1
        off += width; pos += off >>> 3; off &= 7
        last = ref + x + last + bias
        out[i] = (last * bs + R) * ds
      }
    }
    return
  }
  let penultimate = first
  let last = second
  for (; g < ng; g++) {
    const ref = refs[g]; const width = widths[g]; const shift = 31 - width
    const end = next + lengths[g]
    next = end
    for (; i < end; i++) {
      const x = ((view.getUint32(pos) << off) >>> shift) >>> 1
      off += width; pos += off >>> 3; off &= 7
      const y = ref + x + bias + last + last - penultimate
      penultimate = last
      last = y
      out[i] = (y * bs + R) * ds
    }
  }
}

/**
 * Every other case: the group values as integers (NaN where missing) in a reused scratch array.
 * With missing-value management, an all-ones value (primary) or all-ones minus one (secondary)
 * is missing; in a 0-bit group the reference says it for the whole group.
 */
export function groupsToIntegers (groups: Groups, data: Uint8Array, valuesAt: number, nbits: number, mvm: number,
  n: number): Float64Array {
  const { refs, widths, lengths, count: ng } = groups
  if (scratch.length < n) scratch = new Float64Array(n)
  const v = scratch
  const allOnes = 2 ** nbits - 1
  let pos = valuesAt; let acc = 0; let have = 0
  let count = 0
  for (let g = 0; g < ng; g++) {
    const ref = refs[g]; const width = widths[g]
    const end = count + lengths[g]
    if (width === 0) {
      const missing = mvm !== 0 && (ref === allOnes || (mvm === 2 && ref === allOnes - 1))
      v.fill(missing ? NaN : ref, count, end)
      count = end
      continue
    }
    const max = mvm === 0 ? -1 : 2 ** width - 1 // -1: no value is "missing" without management
    const max2 = mvm === 2 ? max - 1 : -1
    if (width <= 24) {
      const mask = (1 << width) - 1
      for (; count < end; count++) {
        while (have < width) { acc = (acc << 8) | data[pos++]; have += 8 }
        have -= width
        const x = (acc >>> have) & mask
        v[count] = x === max || x === max2 ? NaN : ref + x
      }
    } else {
      for (; count < end; count++) {
        // 25..32 bits: two reads of at most 16, joined in floating point (no 32-bit overflow)
        let x = 0
        for (let part = width - 16; part > 0; part = part === 16 ? 0 : 16) {
          while (have < part) { acc = (acc << 8) | data[pos++]; have += 8 }
          have -= part
          x = x * (2 ** part) + ((acc >>> have) & ((1 << part) - 1))
        }
        v[count] = x === max || x === max2 ? NaN : ref + x
      }
    }
  }
  return v
}

/** Undo spatial differencing of the integers in `v` (if any) and scale them into `out`. */
export function scaleIntegers (v: Float64Array, n: number, order: number, mvm: number, data: Uint8Array,
  extra: number, bs: number, R: number, ds: number, out: Float32Array): void {
  if (order > 0 && mvm === 0) {
    undifferenceAndScale(v, n, order, data, extra, bs, R, ds, out)
    return
  }
  if (order > 0) undifference(v, n, order, data, extra)
  for (let i = 0; i < n; i++) out[i] = (v[i] * bs + R) * ds // NaN stays NaN
}

/** No missing values (here: some group wider than 24 bits): undo differencing and scale in one pass. */
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
