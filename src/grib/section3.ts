// Section 3 (grid definition): template 3.0, regular latitude/longitude.
// Section readers take the whole buffer and the offset of a section's first byte (its length
// field) and return a plain record. Offsets in comments are 0-based from that byte.
import { isMissing32, s32, u16, u32 } from './bytes.js'
import { GribError } from './errors.js'
import { EARTH_SHAPES } from './tables.js'

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

export function readGrid (b: Uint8Array, o: number, len: number): LatLonGrid {
  if (len < 14) throw new GribError('bad_length', `section 3 is ${len} bytes, shorter than its 14 fixed bytes`, o)
  const source = b[o + 5]
  const template = u16(b, o + 12)
  if (source !== 0 || template !== 0) {
    throw new GribError('unsupported_grid',
      `grid definition template 3.${template} (source ${source}): aloft reads 3.0 regular lat/lon only`, o + 12)
  }
  if (b[o + 10] !== 0) {
    throw new GribError('unsupported_grid',
      'grid 3.0 with a list of numbers of points (quasi-regular) is not supported', o + 10)
  }
  if (len < 72) throw new GribError('bad_length', `section 3 template 3.0 is ${len} bytes, needs 72`, o)
  const numberOfPoints = u32(b, o + 6)
  const shapeOfEarth = b[o + 14]
  const shape = EARTH_SHAPES[shapeOfEarth]
  if (shape === undefined) {
    throw new GribError('corrupt_section', `shape of the Earth ${shapeOfEarth} is not in code table 3.2`, o + 14)
  }
  let earthRadius = shape.radius ?? null
  if (shapeOfEarth === 1) {
    const scale = b[o + 15]; const value = u32(b, o + 16)
    if (scale === 0xff || isMissing32(value)) {
      throw new GribError('corrupt_section', 'shape of the Earth 1 with a missing radius', o + 15)
    }
    earthRadius = value / 10 ** scale
  }
  const ni = u32(b, o + 30); const nj = u32(b, o + 34)
  if (ni === 0 || nj === 0 || isMissing32(ni) || isMissing32(nj)) {
    throw new GribError('unsupported_grid', `grid 3.0 with Ni=${ni} Nj=${nj} (variable or missing row lengths)`, o + 30)
  }
  if (ni * nj !== numberOfPoints) {
    throw new GribError('corrupt_section', `grid 3.0 has Ni×Nj = ${ni}×${nj} but ${numberOfPoints} data points`, o + 6)
  }
  if (numberOfPoints > MAX_POINTS) {
    throw new GribError('unsupported_grid',
      `grid of ${numberOfPoints} points is larger than aloft's limit of ${MAX_POINTS}`, o + 6)
  }
  const basic = u32(b, o + 38); const subdivisions = u32(b, o + 42)
  if (!(basic === 0 || isMissing32(basic)) || !(subdivisions === 0 || isMissing32(subdivisions))) {
    throw new GribError('unsupported_grid',
      `grid 3.0 in units of ${basic}/${subdivisions} degree (only micro-degrees are read)`, o + 38)
  }
  const la1 = s32(b, o + 46) / 1e6; const lo1 = s32(b, o + 50) / 1e6
  const la2 = s32(b, o + 55) / 1e6; const lo2 = s32(b, o + 59) / 1e6
  const scanningMode = b[o + 71]
  if ((scanningMode & 0x3f) !== 0) {
    // 0x20 (columns consecutive) and 0x10 (boustrophedon) reorder the array; no GFS file uses them
    throw new GribError('unsupported_grid',
      `scanning mode ${scanningMode} (flag table 3.4): only the 0x80 and 0x40 bits are supported`, o + 71)
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
  di = isMissing32(di) ? (ni > 1 ? span / (ni - 1) : 0) : di / 1e6
  dj = isMissing32(dj) ? (nj > 1 ? (north - south) / (nj - 1) : 0) : dj / 1e6
  if (north < south || !(di > 0 || ni === 1) || !(dj > 0 || nj === 1)) {
    throw new GribError('corrupt_section',
      `grid 3.0 first/last points (${la1},${lo1})/(${la2},${lo2}) disagree with scanning mode ${scanningMode}`, o + 46)
  }
  const global = Math.abs(ni * di - 360) < di / 2
  return { template: 0, ni, nj, numberOfPoints, la1, lo1, la2, lo2, di, dj, scanningMode, shapeOfEarth, earthRadius,
    south, north, west, east, global }
}
