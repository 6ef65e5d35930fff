// Public API of aloft's GFS source room: which (run, step) pairs a source holds, which one and
// which grid point answer a request (docs/DESIGN.md §3), and the unit of GRIB2 bytes to fetch for it.
//
//   const source = createSource({ setting: config.source, cacheDir: config.cacheDir,
//     maxTimeOffsetHours: config.maxTimeOffsetHours, registry, store, logger,
//     redisUrl: config.redisUrl, redisPrefix: config.redisPrefix })
//   const r = await source.resolve({ latitude, longitude, time, quality, accountId },  // 404/429 before any fetch
//     (key) => decoded.has(key) || source.onDisk(key))
//   if (!decoded.has(r.unitKey)) {
//     const unit = await source.fetch(r, { accountId })  // may be another unit if upstream lost r's data
//     // unit.bytes, unit.fields (scanned), unit.sha256, unit.retrievedAt, unit.unitKey, unit.run, unit.step
//   }
//   // r.point is a grid point of the source grid: gridPointIndex(decodedGrid, r.point.latitude,
//   // r.point.longitude) finds it in the unit (a filter tile holds it; a bucket unit is the grid).
//
// Every failure is a SourceError with `code` (outside_source_coverage 404,
// daily_allowance_exhausted 429, source_busy 503, unusable_source_column 502), `detail`,
// `retryAfterSeconds` (429/503) and `nearestTimes` (404 in time). A down account store surfaces
// as the store's StoreUnavailableError.
export { createSource, type SourceOptions } from './create.js'
export { allowanceLeft, SourceError, type SourceErrorCode, whoseAllowance } from './errors.js'
export { mirrorDirectoryProblem } from './adapters/index.js'
export { beforeDeadline } from './fetch/index.js'
export { Source } from './source.js'
export type { CheckState } from './source.js'
export type {
  Quality, ResolveRequest, Resolution, SourceDescription, SourceLogger, SourcePoint
} from './types.js'
export { hourRanges, rangeHours, runsOf, validTimesOf, type HourRange, type RunHours } from './runs.js'
export type { FetchedUnit } from './fetch/index.js'
export type { FetchUnit, HeldRunStep, Origin } from './adapters/index.js'
export { chooseTime, type RunsAtTime } from './catalog.js'
export { nearestValidIndex, upperBound } from './nearest-time.js'
export { HOUR_MS, validTime, type RunStep } from './gfs.js'
export { bucketKey, filterQuery, fileUnitKey, parseBucketKey, tileOf, tileUnitKey, GLOBAL_0P25 } from './gfs.js'
export {
  LEVEL_ABOVE_GROUND, LEVEL_ISOBARIC, LEVEL_SURFACE, SURFACE_LAYER_RECORDS, surfaceLayerIndex, type SurfaceLayerRecord
} from './gfs.js'
