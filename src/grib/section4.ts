// Section 4 (product definition): templates 4.0, 4.1 and 4.8 — parameter, level, forecast step.
// Section readers take the whole buffer and the offset of a section's first byte (its length
// field) and return a plain record. Offsets in comments are 0-based from that byte.
import { isMissing32, s32, s8, u16, u32 } from './bytes.js'
import { GribError } from './errors.js'
import { LEVEL_MISSING, LEVEL_TYPES, TIME_UNIT_HOURS } from './tables.js'

export interface Level {
  type: number // code table 4.5
  name: string // LEVEL_TYPES name, or the type number as text
  /** Scaled value in the unit of its type; isobaric (100) is always Pa. null when missing. */
  value: number | null
}

export interface Product {
  template: number // 0, 1 or 8
  category: number
  number: number
  level: Level
  level2: Level | null // second fixed surface (layers), null when missing
  stepHours: number // forecast time, the start of the interval for 4.8
  stepEndHours: number // end of the statistical interval (4.8); equals stepHours otherwise
}

function readLevel (b: Uint8Array, o: number): Level | null {
  const type = b[o]
  if (type === LEVEL_MISSING) return null
  const scale = b[o + 1]; const raw = u32(b, o + 2)
  let value: number | null = null
  if (!isMissing32(raw) && scale !== 0xff) {
    const factor = s8(b, o + 1)
    // exact for the integers GFS uses: 50000 Pa, 40 Pa, 2 m ...; division keeps 0.4 as 0.4
    const signed = s32(b, o + 2) // sign and magnitude: PV surfaces are -2e-6 in the southern hemisphere
    value = factor >= 0 ? signed / 10 ** factor : signed * 10 ** -factor
  }
  return { type, name: LEVEL_TYPES[type] ?? String(type), value }
}

function hoursOf (unit: number, amount: number, at: number): number {
  const h = TIME_UNIT_HOURS[unit]
  if (h === undefined) {
    throw new GribError('unsupported_product', `time unit ${unit} (code table 4.4) has no fixed length in hours`, at)
  }
  return amount * h
}

export function readProduct (b: Uint8Array, o: number, len: number): Product {
  if (len < 9) throw new GribError('bad_length', `section 4 is ${len} bytes, shorter than its 9 fixed bytes`, o)
  const template = u16(b, o + 7)
  const fixed = template === 0 ? 34 : template === 1 ? 37 : template === 8 ? 58 : -1
  if (fixed < 0) {
    throw new GribError('unsupported_product',
      `product definition template 4.${template}: aloft reads 4.0, 4.1 and 4.8`, o + 7)
  }
  if (len < fixed) {
    throw new GribError('bad_length', `section 4 template 4.${template} is ${len} bytes, needs ${fixed}`, o)
  }
  const level = readLevel(b, o + 22)
  if (level === null) throw new GribError('corrupt_section', 'product has no first fixed surface (type 255)', o + 22)
  const stepHours = hoursOf(b[o + 17], u32(b, o + 18), o + 17)
  let stepEndHours = stepHours
  if (template === 8) {
    const ranges = b[o + 41]
    if (ranges < 1 || len < 46 + 12 * ranges) {
      throw new GribError('corrupt_section', `template 4.8 with ${ranges} time ranges in ${len} bytes`, o + 41)
    }
    stepEndHours = stepHours + hoursOf(b[o + 48], u32(b, o + 49), o + 48)
  }
  return { template, category: b[o + 9], number: b[o + 10], level, level2: readLevel(b, o + 28), stepHours,
    stepEndHours }
}
