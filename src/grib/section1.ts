// Section 1 (identification): the originating centre and the reference time.
// Section readers take the whole buffer and the offset of a section's first byte (its length
// field) and return a plain record. Offsets in comments are 0-based from that byte.
import { u16 } from './bytes.js'
import { GribError } from './errors.js'

export function readSection1 (b: Uint8Array, o: number, len: number): { centre: number, referenceTime: string } {
  if (len < 21) throw new GribError('bad_length', `section 1 is ${len} bytes, shorter than its 21 fixed bytes`, o)
  const year = u16(b, o + 12); const month = b[o + 14]; const day = b[o + 15]
  const hour = b[o + 16]; const minute = b[o + 17]; const second = b[o + 18]
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw new GribError('corrupt_section',
      `section 1 reference time ${year}-${month}-${day} ${hour}:${minute}:${second} is not a time`, o + 12)
  }
  const p = (n: number): string => String(n).padStart(2, '0')
  return { centre: u16(b, o + 5),
    referenceTime: `${String(year).padStart(4, '0')}-${p(month)}-${p(day)}T${p(hour)}:${p(minute)}:${p(second)}Z` }
}
