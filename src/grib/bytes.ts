// Fixed-width big-endian readers and the bit cursor used by every data template.
// Callers check bounds once per section (see `need`), so these readers stay branch-free.
import { GribError } from './errors.js'

export function u8 (b: Uint8Array, o: number): number { return b[o] }
export function u16 (b: Uint8Array, o: number): number { return b[o] * 0x100 + b[o + 1] }
export function u32 (b: Uint8Array, o: number): number {
  // multiplication, not <<, so bit 31 does not make the number negative
  return b[o] * 0x1000000 + b[o + 1] * 0x10000 + b[o + 2] * 0x100 + b[o + 3]
}

/** A 4-octet field with every bit set: GRIB2's "missing" for unsigned integers. */
export function isMissing32 (v: number): boolean { return v === 0xffffffff }

// GRIB2 writes signed integers as sign and magnitude (highest bit = sign), not two's complement.
export function s8 (b: Uint8Array, o: number): number {
  const v = b[o]
  return v & 0x80 ? -(v & 0x7f) : v
}
export function s16 (b: Uint8Array, o: number): number {
  const v = u16(b, o)
  return v & 0x8000 ? -(v & 0x7fff) : v
}
export function s32 (b: Uint8Array, o: number): number {
  const hi = b[o]
  const mag = (hi & 0x7f) * 0x1000000 + b[o + 1] * 0x10000 + b[o + 2] * 0x100 + b[o + 3]
  return hi & 0x80 ? -mag : mag
}
/** Sign-and-magnitude integer of `nbytes` bytes (1..6), as in the 5.3 extra descriptors. */
export function sN (b: Uint8Array, o: number, nbytes: number): number {
  let mag = b[o] & 0x7f
  for (let k = 1; k < nbytes; k++) mag = mag * 256 + b[o + k]
  return b[o] & 0x80 ? -mag : mag
}
/** Unsigned integer of `nbytes` bytes (1..6). */
export function uN (b: Uint8Array, o: number, nbytes: number): number {
  let v = 0
  for (let k = 0; k < nbytes; k++) v = v * 256 + b[o + k]
  return v
}

const scratch = new DataView(new ArrayBuffer(4))
/** IEEE 754 single precision, big-endian (the reference value of every data template). */
export function f32 (b: Uint8Array, o: number): number {
  scratch.setUint8(0, b[o]); scratch.setUint8(1, b[o + 1]); scratch.setUint8(2, b[o + 2]); scratch.setUint8(3, b[o + 3])
  return scratch.getFloat32(0)
}

/** Throws `truncated` unless `len` bytes from `o` lie inside `end`. */
export function need (end: number, o: number, len: number, what: string): void {
  if (o + len > end) {
    throw new GribError('truncated', `${what} needs ${len} bytes but only ${Math.max(0, end - o)} remain`, o)
  }
}

/** Bytes needed to hold `count` values of `bits` bits, rounded up to whole bytes. */
export function bytesFor (count: number, bits: number): number {
  return Math.ceil(count * bits / 8)
}

/**
 * A DataView over `b` and the 4 bytes after it, or null when its buffer ends sooner. Section 7 of
 * a scanned message is always followed by the '7777' end marker, so its readers can cut each value
 * from one big-endian 32-bit load at the value's first byte, with no branch per value; the bits
 * taken from past `b` are shifted out unused.
 */
export function paddedView (b: Uint8Array): DataView | null {
  if (b.byteOffset + b.byteLength + 4 > b.buffer.byteLength) return null
  return new DataView(b.buffer, b.byteOffset, b.byteLength + 4)
}

/**
 * A big-endian bit cursor over `b`. Reads of up to 25 bits go through a 32-bit integer
 * accumulator; wider ones (rare: 26..32-bit packing) fall back to float arithmetic.
 * No bounds checks here: decoders verify the bit budget of a section before reading it.
 */
export class BitReader {
  private pos: number // next byte to load
  private acc = 0 // low `have` bits are unread
  private have = 0

  constructor (private readonly b: Uint8Array, byteOffset: number) { this.pos = byteOffset }

  read (n: number): number {
    if (n === 0) return 0
    if (n > 25) return this.readWide(n)
    while (this.have < n) { this.acc = ((this.acc << 8) | this.b[this.pos++]) >>> 0; this.have += 8 }
    this.have -= n
    const v = (this.acc >>> this.have) & ((1 << n) - 1)
    this.acc &= (1 << this.have) - 1
    return v
  }

  private readWide (n: number): number {
    const hi = this.read(n - 16)
    return hi * 65536 + this.read(16)
  }

  /** Skip to the next byte boundary (group widths, lengths and values each start on one). */
  align (): void { this.have = 0; this.acc = 0 }

  /** Byte offset of the next unread whole byte. */
  get byteOffset (): number { return this.pos }
}
