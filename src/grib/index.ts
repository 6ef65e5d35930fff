// Public API of aloft's GRIB2 decoder. Pure: no HTTP, no Redis, no file system.
import { initJpeg2000, type Jpeg2000Choice } from './jpeg2000.js'
export { jpeg2000Codec } from './jpeg2000.js'
export type { Jpeg2000Choice, Jpeg2000Codec } from './jpeg2000.js'

export { GribError } from './errors.js'
export type { GribErrorReason } from './errors.js'
export { scanMessages, dataParams } from './message.js'
export type { GribField } from './message.js'
export { decodeField } from './decode.js'
export { gridPointIndex, indexOf, nearestColumnRow, normalizeLongitude } from './grid.js'
export type { GridPoint } from './grid.js'
export { parseIdx, findIdx, isobaricLevelText } from './idx.js'
export type { IdxEntry } from './idx.js'
export { MAX_POINTS } from './section3.js'
export type { LatLonGrid } from './section3.js'
export type { Level } from './section4.js'
export type { DataParams } from './section5.js'
export { packingStep } from './section5.js'
export { parameterName, PACKING_NAMES, LEVEL_TYPES } from './tables.js'

export interface GribOptions {
  /** Which OpenJPEG build decodes template 5.40: `auto` (default) takes the native one when it was built. */
  jpeg2000?: Jpeg2000Choice
}

/** Load what decoding needs (the JPEG 2000 codec). Idempotent. */
export async function initGrib (options: GribOptions = {}): Promise<void> {
  await initJpeg2000(options.jpeg2000)
}
