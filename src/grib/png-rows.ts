// One PNG row at a time, in the inflated buffer itself: undo the row's filter (PNG spec §9), then
// scale its pixels into the output. In place is safe: a row's filters only look at bytes to its
// left and at the row above, both already unfiltered.
import { GribError } from './errors.js'

/**
 * Unfilter `len` bytes at `at` in `b`; the row above starts at `prev` (-1 for the first row, where
 * it counts as zeros). `bpp`: bytes per pixel, the distance to the byte on the left.
 */
export function unfilterRow (b: Uint8Array, at: number, prev: number, len: number, bpp: number, type: number): void {
  const end = at + len
  switch (type) {
    case 0: return // None
    case 1: // Sub: + left
      for (let i = at + bpp; i < end; i++) b[i] += b[i - bpp]
      return
    case 2: // Up: + above
      if (prev < 0) return
      for (let i = at, j = prev; i < end; i++, j++) b[i] += b[j]
      return
    case 3: // Average: + floor((left + above) / 2)
      if (prev < 0) {
        for (let i = at + bpp; i < end; i++) b[i] += b[i - bpp] >> 1
        return
      }
      for (let i = at, j = prev; i < at + bpp; i++, j++) b[i] += b[j] >> 1
      for (let i = at + bpp, j = prev + bpp; i < end; i++, j++) b[i] += (b[i - bpp] + b[j]) >> 1
      return
    case 4: // Paeth: + whichever of left, above, upper left is nearest to left + above - upper left
      if (prev < 0) { // above and upper left are 0, so the predictor is the left byte: Sub
        for (let i = at + bpp; i < end; i++) b[i] += b[i - bpp]
        return
      }
      for (let i = at, j = prev; i < at + bpp; i++, j++) b[i] += b[j] // no left: the byte above
      if (bpp === 2) { paeth2(b, at, prev, end); return }
      for (let i = at + bpp, j = prev + bpp; i < end; i++, j++) b[i] += paeth(b[i - bpp], b[j], b[j - bpp])
      return
    default:
      throw new GribError('corrupt_section', `PNG row filter type ${type} (0 to 4)`)
  }
}

/**
 * The Paeth predictor: whichever of left `a`, above `b` and upper left `c` is nearest to a + b - c
 * (ties in that order). Chosen by masks, not branches: on real data the choice is a coin toss, and
 * mispredicted branches cost more than the rest of the loop.
 */
function paeth (a: number, b: number, c: number): number {
  let pa = b - c; let pb = a - c; let pc = pa + pb // the distances, signed
  pa = (pa ^ (pa >> 31)) - (pa >> 31); pb = (pb ^ (pb >> 31)) - (pb >> 31); pc = (pc ^ (pc >> 31)) - (pc >> 31)
  const bOrC = b ^ ((b ^ c) & ((pc - pb) >> 31)) // pb <= pc ? b : c (the mask is all ones where the test fails)
  return a ^ ((a ^ bOrC) & (((pb - pa) | (pc - pa)) >> 31)) // pa <= pb && pa <= pc ? a : bOrC
}

/**
 * Paeth for 2 bytes a pixel (16-bit gray, the usual GRIB image) from its second pixel on, the
 * bytes on the left and upper left kept in locals: each byte depends on the one two before it,
 * and reading that back from memory would lengthen the chain.
 */
function paeth2 (b: Uint8Array, at: number, prev: number, end: number): void {
  let a0 = b[at]; let a1 = b[at + 1]; let c0 = b[prev]; let c1 = b[prev + 1]
  for (let i = at + 2, j = prev + 2; i < end; i += 2, j += 2) {
    const u0 = b[j]; const u1 = b[j + 1]
    a0 = (b[i] + paeth(a0, u0, c0)) & 0xff
    a1 = (b[i + 1] + paeth(a1, u1, c1)) & 0xff
    b[i] = a0; b[i + 1] = a1
    c0 = u0; c1 = u1
  }
}

/** The `width` pixels at `at` (big-endian values of `bpp` bytes) scaled into `out` from `o`. */
export function scaleRow (b: Uint8Array, at: number, width: number, bpp: number, out: Float32Array, o: number,
  bs: number, R: number, ds: number): void {
  const end = o + width
  if (bpp === 2) { // 16-bit gray: the common case
    for (let i = o, k = at; i < end; i++, k += 2) out[i] = (((b[k] << 8) | b[k + 1]) * bs + R) * ds
  } else if (bpp === 1) {
    for (let i = o, k = at; i < end; i++, k++) out[i] = (b[k] * bs + R) * ds
  } else if (bpp === 3) {
    for (let i = o, k = at; i < end; i++, k += 3) out[i] = (((b[k] << 16) | (b[k + 1] << 8) | b[k + 2]) * bs + R) * ds
  } else { // 4: multiplied, not shifted, so a top bit set does not make the value negative
    for (let i = o, k = at; i < end; i++, k += 4) {
      out[i] = ((b[k] * 0x1000000 + ((b[k + 1] << 16) | (b[k + 2] << 8) | b[k + 3])) * bs + R) * ds
    }
  }
}
