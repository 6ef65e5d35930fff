// Section readers: each takes the whole buffer and the offset of a section's first byte (its
// length field) and returns a plain record. Offsets in comments are 0-based from that byte.
import { f32, s16, s32, s8, u16, u32, u8 } from './bytes.js'
import { GribError } from './errors.js'
import { EARTH_SHAPES, LEVEL_ISOBARIC, LEVEL_MISSING, LEVEL_TYPES, TIME_UNIT_HOURS } from './tables.js'

/** Grids larger than this are refused before anything is sized by them (GFS 0.25° has 1 038 240). */
export const MAX_POINTS = 1 << 24

/** Grid template 3.0, regular latitude/longitude. Angles in degrees. */
export interface LatLonGrid {
  template: 0
  ni: number // points along a parallel
  nj: number // points along a meridian
  numberOfPoints: number
  la1: number, lo1: number, la2: number, lo2: number // first and last grid points, as written
  di: number, dj: number // increments, positive
  scanningMode: number // flag table 3.4 (0x80 i westward, 0x40 j northward)
  shapeOfEarth: number // code table 3.2
  earthRadius: number | null // metres, for the spheres of table 3.2; null for oblate shapes
  south: number, north: number, west: number, east: number // bounding rows/columns of the grid
  global: boolean // the rows go round the whole Earth, so longitude indices wrap
}

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

function missing32 (v: number): boolean { return v === 0xffffffff }

export function readSection1 (b: Uint8Array, o: number, len: number): { centre: number, referenceTime: string } {
  if (len < 21) throw new GribError('bad_length', `section 1 is ${len} bytes, shorter than its 21 fixed bytes`, o)
  const year = u16(b, o + 12); const month = b[o + 14]; const day = b[o + 15]
  const hour = b[o + 16]; const minute = b[o + 17]; const second = b[o + 18]
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw new GribError('corrupt_section', `section 1 reference time ${year}-${month}-${day} ${hour}:${minute}:${second} is not a time`, o + 12)
  }
  const p = (n: number): string => String(n).padStart(2, '0')
  return { centre: u16(b, o + 5), referenceTime: `${String(year).padStart(4, '0')}-${p(month)}-${p(day)}T${p(hour)}:${p(minute)}:${p(second)}Z` }
}

export function readGrid (b: Uint8Array, o: number, len: number): LatLonGrid {
  if (len < 14) throw new GribError('bad_length', `section 3 is ${len} bytes, shorter than its 14 fixed bytes`, o)
  const source = b[o + 5]
  const template = u16(b, o + 12)
  if (source !== 0 || template !== 0) {
    throw new GribError('unsupported_grid', `grid definition template 3.${template} (source ${source}): aloft reads 3.0 regular lat/lon only`, o + 12)
  }
  if (b[o + 10] !== 0) throw new GribError('unsupported_grid', 'grid 3.0 with a list of numbers of points (quasi-regular) is not supported', o + 10)
  if (len < 72) throw new GribError('bad_length', `section 3 template 3.0 is ${len} bytes, needs 72`, o)
  const numberOfPoints = u32(b, o + 6)
  const shapeOfEarth = b[o + 14]
  const shape = EARTH_SHAPES[shapeOfEarth]
  if (shape === undefined) throw new GribError('corrupt_section', `shape of the Earth ${shapeOfEarth} is not in code table 3.2`, o + 14)
  let earthRadius = shape.radius ?? null
  if (shapeOfEarth === 1) {
    const scale = b[o + 15]; const value = u32(b, o + 16)
    if (scale === 0xff || missing32(value)) throw new GribError('corrupt_section', 'shape of the Earth 1 with a missing radius', o + 15)
    earthRadius = value / 10 ** scale
  }
  const ni = u32(b, o + 30); const nj = u32(b, o + 34)
  if (ni === 0 || nj === 0 || missing32(ni) || missing32(nj)) {
    throw new GribError('unsupported_grid', `grid 3.0 with Ni=${ni} Nj=${nj} (variable or missing row lengths)`, o + 30)
  }
  if (ni * nj !== numberOfPoints) {
    throw new GribError('corrupt_section', `grid 3.0 has Ni×Nj = ${ni}×${nj} but ${numberOfPoints} data points`, o + 6)
  }
  if (numberOfPoints > MAX_POINTS) {
    throw new GribError('unsupported_grid', `grid of ${numberOfPoints} points is larger than aloft's limit of ${MAX_POINTS}`, o + 6)
  }
  const basic = u32(b, o + 38); const subdivisions = u32(b, o + 42)
  if (!(basic === 0 || missing32(basic)) || !(subdivisions === 0 || missing32(subdivisions))) {
    throw new GribError('unsupported_grid', `grid 3.0 in units of ${basic}/${subdivisions} degree (only micro-degrees are read)`, o + 38)
  }
  const la1 = s32(b, o + 46) / 1e6; const lo1 = s32(b, o + 50) / 1e6
  const la2 = s32(b, o + 55) / 1e6; const lo2 = s32(b, o + 59) / 1e6
  const scanningMode = b[o + 71]
  if ((scanningMode & 0x3f) !== 0) {
    // 0x20 (columns consecutive) and 0x10 (boustrophedon) reorder the array; no GFS file uses them
    throw new GribError('unsupported_grid', `scanning mode ${scanningMode} (flag table 3.4): only the 0x80 and 0x40 bits are supported`, o + 71)
  }
  const iPositive = (scanningMode & 0x80) === 0
  const jPositive = (scanningMode & 0x40) !== 0
  const west = iPositive ? lo1 : lo2
  const east = iPositive ? lo2 : lo1
  const south = jPositive ? la1 : la2
  const north = jPositive ? la2 : la1
  let di = u32(b, o + 63); let dj = u32(b, o + 67)
  // a missing increment is implied by the first and last points
  const span = ((east - west) % 360 + 360) % 360
  di = missing32(di) ? (ni > 1 ? span / (ni - 1) : 0) : di / 1e6
  dj = missing32(dj) ? (nj > 1 ? (north - south) / (nj - 1) : 0) : dj / 1e6
  if (north < south || !(di > 0 || ni === 1) || !(dj > 0 || nj === 1)) {
    throw new GribError('corrupt_section', `grid 3.0 first/last points (${la1},${lo1})/(${la2},${lo2}) disagree with scanning mode ${scanningMode}`, o + 46)
  }
  const global = Math.abs(ni * di - 360) < di / 2
  return { template: 0, ni, nj, numberOfPoints, la1, lo1, la2, lo2, di, dj, scanningMode, shapeOfEarth, earthRadius, south, north, west, east, global }
}

function readLevel (b: Uint8Array, o: number): Level | null {
  const type = b[o]
  if (type === LEVEL_MISSING) return null
  const scale = b[o + 1]; const raw = u32(b, o + 2)
  let value: number | null = null
  if (!missing32(raw) && scale !== 0xff) {
    const factor = s8(b, o + 1)
    // exact for the integers GFS uses: 50000 Pa, 40 Pa, 2 m ...; division keeps 0.4 as 0.4
    const signed = s32(b, o + 2) // sign and magnitude: PV surfaces are -2e-6 in the southern hemisphere
    value = factor >= 0 ? signed / 10 ** factor : signed * 10 ** -factor
  }
  return { type, name: LEVEL_TYPES[type] ?? String(type), value }
}

function hoursOf (unit: number, amount: number, at: number): number {
  const h = TIME_UNIT_HOURS[unit]
  if (h === undefined) throw new GribError('unsupported_product', `time unit ${unit} (code table 4.4) has no fixed length in hours`, at)
  return amount * h
}

export function readProduct (b: Uint8Array, o: number, len: number): Product {
  if (len < 9) throw new GribError('bad_length', `section 4 is ${len} bytes, shorter than its 9 fixed bytes`, o)
  const template = u16(b, o + 7)
  const fixed = template === 0 ? 34 : template === 1 ? 37 : template === 8 ? 58 : -1
  if (fixed < 0) throw new GribError('unsupported_product', `product definition template 4.${template}: aloft reads 4.0, 4.1 and 4.8`, o + 7)
  if (len < fixed) throw new GribError('bad_length', `section 4 template 4.${template} is ${len} bytes, needs ${fixed}`, o)
  const level = readLevel(b, o + 22)
  if (level === null) throw new GribError('corrupt_section', 'product has no first fixed surface (type 255)', o + 22)
  const stepHours = hoursOf(b[o + 17], u32(b, o + 18), o + 17)
  let stepEndHours = stepHours
  if (template === 8) {
    const ranges = b[o + 41]
    if (ranges < 1 || len < 46 + 12 * ranges) throw new GribError('corrupt_section', `template 4.8 with ${ranges} time ranges in ${len} bytes`, o + 41)
    stepEndHours = stepHours + hoursOf(b[o + 48], u32(b, o + 49), o + 48)
  }
  return { template, category: b[o + 9], number: b[o + 10], level, level2: readLevel(b, o + 28), stepHours, stepEndHours }
}

/** What the index needs from section 5: template, values coded, bits (null for templates aloft does not decode). */
export function readDataHeader (b: Uint8Array, o: number, len: number): { template: number, numberOfValues: number, bitsPerValue: number | null } {
  if (len < 11) throw new GribError('bad_length', `section 5 is ${len} bytes, shorter than its 11 fixed bytes`, o)
  const template = u16(b, o + 9)
  const fixed = DRS_LENGTH[template]
  return { template, numberOfValues: u32(b, o + 5), bitsPerValue: fixed !== undefined && len >= fixed ? b[o + 19] : null }
}

/** Fixed length of section 5 for each template aloft decodes. */
const DRS_LENGTH: Record<number, number> = { 0: 21, 2: 47, 3: 49, 40: 23, 41: 21 }

export function readDataRepresentation (b: Uint8Array, o: number, len: number): DataParams {
  if (len < 11) throw new GribError('bad_length', `section 5 is ${len} bytes, shorter than its 11 fixed bytes`, o)
  const template = u16(b, o + 9)
  const fixed = DRS_LENGTH[template]
  if (fixed === undefined) {
    throw new GribError('unsupported_packing', `data representation template 5.${template}: aloft decodes 5.0, 5.2, 5.3, 5.40 and 5.41`, o + 9)
  }
  if (len < fixed) throw new GribError('bad_length', `section 5 template 5.${template} is ${len} bytes, needs ${fixed}`, o)
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
