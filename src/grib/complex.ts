// Templates 5.2 (complex packing) and 5.3 (complex packing with spatial differencing), in the
// order ecCodes' data_g22order_packing decodes them, so results match it exactly:
//   [5.3 extra descriptors][NG group references][NG group widths][NG group lengths][values]
// each part starting on a byte boundary; missing values (management 1/2) become NaN.
// The descriptors are unpacked and checked first, each part in one tight loop into a typed array,
// so the value loops (complex-values.ts) run with no per-group reads or checks.
import { BitReader, bytesFor, paddedView } from './bytes.js'
import { differenced, groupsToIntegers, scaleIntegers } from './complex-values.js'
import { GribError } from './errors.js'
import { power } from './scaling.js'
import type { DataParams } from './section5.js'

// Per-group references, widths and lengths. Reused across calls (one set per worker thread),
// grown to the most groups seen: a 0.25° field has ~30 000 groups.
let refs = new Uint32Array(0)
let widths = new Uint32Array(0)
let lengths = new Uint32Array(0)

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

  if (refs.length < ng) {
    refs = new Uint32Array(ng); widths = new Uint32Array(ng); lengths = new Uint32Array(ng)
  }
  const view = paddedView(data)
  unpack(data, view, refsAt, ng, nbits, refs)
  unpack(data, view, widthsAt, ng, p.groupWidthBits, widths)
  unpack(data, view, lengthsAt, ng, p.groupLengthBits, lengths)
  const widest = checkGroups(p, n, (data.length - valuesAt) * 8)

  const groups = { refs, widths, lengths, count: ng }
  // the common case (GFS): no missing values, differenced, narrow groups: one pass into `out`
  if (view !== null && order > 0 && mvm === 0 && widest <= 24) {
    differenced(groups, data, view, valuesAt, order, extra, bs, R, ds, out)
    return
  }
  const v = groupsToIntegers(groups, data, valuesAt, nbits, mvm, n)
  scaleIntegers(v, n, order, mvm, data, extra, bs, R, ds, out)
}

/** `count` unsigned integers of `bits` bits from byte `at` into `into` (`view`: see paddedView). */
function unpack (data: Uint8Array, view: DataView | null, at: number, count: number, bits: number,
  into: Uint32Array): void {
  if (view === null || bits > 24) { // rare: wide fields, or a section 7 not followed by its end marker
    const r = new BitReader(data, at)
    for (let i = 0; i < count; i++) into[i] = r.read(bits)
    return
  }
  const shift = 31 - bits // and then 1 more: 0 bits give 0 (a shift by 32 would be a shift by 0)
  let pos = at; let off = 0 // byte, and bit in it (0..7)
  for (let i = 0; i < count; i++) {
    into[i] = ((view.getUint32(pos) << off) >>> shift) >>> 1
    off += bits; pos += off >>> 3; off &= 7
  }
}

/**
 * Turns the unpacked widths and lengths into true ones, in place, checking each group in order as
 * ecCodes reads them: the values stay inside the grid and section 7. Returns the widest group.
 */
function checkGroups (p: DataParams, n: number, valueBits: number): number {
  const ng = p.groups
  let count = 0
  let used = 0 // bits of the values part
  let widest = 0
  for (let g = 0; g < ng; g++) {
    const width = widths[g] + p.groupWidthReference
    const len = g === ng - 1 ? p.lastGroupLength : lengths[g] * p.groupLengthIncrement + p.groupLengthReference
    if (count + len > n) fail(`group ${g} of length ${len} runs past ${n} values`)
    if (width > 32) throw new GribError('unsupported_packing', `group ${g} is ${width} bits wide (at most 32)`)
    used += len * width
    if (used > valueBits) {
      throw new GribError('truncated', `group ${g} needs ${used} value bits, section 7 holds ${valueBits}`)
    }
    count += len
    widths[g] = width
    lengths[g] = len
    if (width > widest) widest = width
  }
  if (count !== n) fail(`groups hold ${count} values, section 5 says ${n}`)
  return widest
}
