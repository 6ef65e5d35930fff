// Section 5 (data representation): the packing template and its parameters.
// Section readers take the whole buffer and the offset of a section's first byte (its length
// field) and return a plain record. Offsets in comments are 0-based from that byte.
import { f32, s16, u16, u32, u8 } from './bytes.js'
import { GribError } from './errors.js'

/** Section 5 common part (template 5.x keeps its own fields in `DataParams`). */
export interface DataParams {
  template: number
  numberOfValues: number // values coded in section 7 (points with a bitmap bit set)
  reference: number // R, IEEE float32 widened to double
  binaryScale: number // E
  decimalScale: number // D
  bitsPerValue: number
  // 5.2 / 5.3
  missingManagement: number
  groups: number
  groupWidthReference: number, groupWidthBits: number
  groupLengthReference: number, groupLengthIncrement: number, lastGroupLength: number, groupLengthBits: number
  spatialOrder: number, extraOctets: number
}

/** What the index needs from section 5: template, values coded, bits (null for templates aloft does not decode). */
export function readDataHeader (
  b: Uint8Array, o: number, len: number
): { template: number, numberOfValues: number, bitsPerValue: number | null } {
  if (len < 11) throw new GribError('bad_length', `section 5 is ${len} bytes, shorter than its 11 fixed bytes`, o)
  const template = u16(b, o + 9)
  const fixed = DRS_LENGTH[template]
  const bitsPerValue = fixed !== undefined && len >= fixed ? b[o + 19] : null
  return { template, numberOfValues: u32(b, o + 5), bitsPerValue }
}

/**
 * The packing's step, 2^E / 10^D: decoded values lie on a grid of that spacing (plus the reference), so
 * a field is no finer than it (docs/DESIGN.md §8's precision rule).
 */
export function packingStep (p: Pick<DataParams, 'binaryScale' | 'decimalScale'>): number {
  return 2 ** p.binaryScale / 10 ** p.decimalScale
}

/** Fixed length of section 5 for each template aloft decodes. */
const DRS_LENGTH: Record<number, number> = { 0: 21, 2: 47, 3: 49, 40: 23, 41: 21 }

export function readDataRepresentation (b: Uint8Array, o: number, len: number): DataParams {
  if (len < 11) throw new GribError('bad_length', `section 5 is ${len} bytes, shorter than its 11 fixed bytes`, o)
  const template = u16(b, o + 9)
  const fixed = DRS_LENGTH[template]
  if (fixed === undefined) {
    throw new GribError('unsupported_packing',
      `data representation template 5.${template}: aloft decodes 5.0, 5.2, 5.3, 5.40 and 5.41`, o + 9)
  }
  if (len < fixed) {
    throw new GribError('bad_length', `section 5 template 5.${template} is ${len} bytes, needs ${fixed}`, o)
  }
  const p: DataParams = {
    template,
    numberOfValues: u32(b, o + 5),
    reference: f32(b, o + 11),
    binaryScale: s16(b, o + 15),
    decimalScale: s16(b, o + 17),
    bitsPerValue: u8(b, o + 19),
    missingManagement: 0,
    groups: 0,
    groupWidthReference: 0,
    groupWidthBits: 0,
    groupLengthReference: 0,
    groupLengthIncrement: 0,
    lastGroupLength: 0,
    groupLengthBits: 0,
    spatialOrder: 0,
    extraOctets: 0
  }
  if (template === 2 || template === 3) {
    p.missingManagement = b[o + 22]
    p.groups = u32(b, o + 31)
    p.groupWidthReference = b[o + 35]
    p.groupWidthBits = b[o + 36]
    p.groupLengthReference = u32(b, o + 37)
    p.groupLengthIncrement = b[o + 41]
    p.lastGroupLength = u32(b, o + 42)
    p.groupLengthBits = b[o + 46]
  }
  if (template === 3) {
    p.spatialOrder = b[o + 47]
    p.extraOctets = b[o + 48]
  }
  return p
}
