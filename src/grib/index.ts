// Public API of aloft's GRIB2 decoder. Pure: no HTTP, no Redis, no file system.
import { initJpeg2000 } from './jpeg2000.js'

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
export { parameterName, PACKING_NAMES, LEVEL_TYPES } from './tables.js'

/** Load what decoding needs asynchronously (the JPEG 2000 WebAssembly codec). Idempotent. */
export async function initGrib (): Promise<void> {
  await initJpeg2000()
}
