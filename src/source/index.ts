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
import type { Registry } from 'prom-client'
import type { AccountStore } from '../accounts/index.js'
import { UPSTREAM_PER_MINUTE_DEFAULT, type SourceSetting } from '../config/index.js'
import {
  BucketAdapter, DirectoryAdapter, FilterAdapter, NOAA_DEFAULTS, NoaaAdapter, type Adapter
} from './adapters/index.js'
import type { FetcherOptions } from './fetcher.js'
import type { HttpOptions } from './http.js'
import { Source } from './source.js'
import type { SourceLogger } from './resolution.js'
import { Throttle } from './throttle.js'
import { RedisUnitLocks } from './unit-locks.js'
import { connectRedis } from '../redis.js'

export { allowanceLeft, SourceError, type SourceErrorCode, whoseAllowance } from './errors.js'
export { mirrorDirectoryProblem } from './adapters/index.js'
export { beforeDeadline } from './deadline.js'
export { Source } from './source.js'
export type { CheckState } from './source.js'
export type {
  Quality, ResolveRequest, Resolution, SourceDescription, SourceLogger, SourcePoint
} from './resolution.js'
export { hourRanges, rangeHours, runsOf, validTimesOf, type HourRange, type RunHours } from './runs.js'
export type { FetchedUnit } from './fetcher.js'
export type { FetchUnit, HeldRunStep, Origin } from './adapters/index.js'
export { chooseTime, type RunsAtTime } from './catalog.js'
export { nearestValidIndex, upperBound } from './nearest-time.js'
export { HOUR_MS, validTime, type RunStep } from './gfs.js'
export { bucketKey, filterQuery, fileUnitKey, parseBucketKey, tileOf, tileUnitKey, GLOBAL_0P25 } from './gfs.js'
export {
  LEVEL_ABOVE_GROUND, LEVEL_ISOBARIC, LEVEL_SURFACE, SURFACE_LAYER_RECORDS, surfaceLayerIndex, type SurfaceLayerRecord
} from './gfs.js'

export interface SourceOptions {
  setting: SourceSetting
  cacheDir: string
  registry: Registry
  store: AccountStore
  logger: SourceLogger
  /** docs/DESIGN.md §3: how far (inclusive) the nearest model time may lie; default 3 h. */
  maxTimeOffsetHours?: number
  /** Cluster the upstream limiter through this Redis (REDIS_URL). */
  redisUrl?: string
  /** Prefix of the limiter's Redis keys (ALOFT_REDIS_PREFIX); default `aloft:`. */
  redisPrefix?: string
  /** Grib-filter tile edge in degrees (a multiple of 0.25 dividing 360); default 1. */
  tileDegrees?: number
  /** Upstream HTTP requests at once, across the cluster; default 4. */
  upstreamConcurrency?: number
  /** Upstream HTTP requests per minute, across the cluster; default UPSTREAM_PER_MINUTE_DEFAULT. */
  upstreamPerMinute?: number
  /** Override the limiter interval (tests); default 60 000 ms. */
  upstreamIntervalMs?: number
  /** Override the clustered limiter's client timeout (tests); default 10 000 ms. */
  limiterClientTimeoutMs?: number
  /** Timeout of one upstream HTTP request; default 30 000 ms. */
  requestTimeoutMs?: number
  /** How long a request may wait for a unit in all (queue, single flight, requests, retries); default 20 000 ms. */
  fetchDeadlineMs?: number
  /** Bound on the raw disk cache (bytes); least recently used units go first. Default unbounded. */
  cacheMaxBytes?: number
  fetch?: FetcherOptions
  catalog?: { refreshMs?: number, missingMs?: number, maxStepHours?: number }
  /** noaa only: other base URLs (tests point them at the local upstream). */
  noaaUrls?: Partial<typeof NOAA_DEFAULTS>
  /** filter only: the directory listing of `gfs.YYYYMMDD/`; default `<origin>/pub/data/nccf/com/gfs/prod/`. */
  filterListingUrl?: string
}

export function createSource (options: SourceOptions): Source {
  const tileDegrees = options.tileDegrees ?? 1
  const tileSize = Math.round(tileDegrees / 0.25)
  if (!(tileSize >= 1 && Math.abs(tileSize * 0.25 - tileDegrees) < 1e-9 && 1440 % tileSize === 0)) {
    throw new RangeError(`tile size ${tileDegrees}° must be a multiple of 0.25° that divides 360°`)
  }
  const s = options.setting
  const throttle = new Throttle({
    maxConcurrent: options.upstreamConcurrency,
    perInterval: options.upstreamPerMinute ?? UPSTREAM_PER_MINUTE_DEFAULT[s.kind],
    intervalMs: options.upstreamIntervalMs,
    clientTimeoutMs: options.limiterClientTimeoutMs,
    redisUrl: options.redisUrl,
    id: `${options.redisPrefix ?? 'aloft:'}{upstream}`,
    onError: (err) => options.logger.warn(`upstream limiter: ${(err as Error).message}`),
    onRefreed: (count) => options.logger.info(`upstream limiter: ${count} slot(s) of fetches that ended while ` +
      'Redis was away freed now')
  })
  const http: HttpOptions = { throttle, timeoutMs: options.requestTimeoutMs ?? 30_000 }
  let adapter: Adapter
  if (s.kind === 'noaa') {
    adapter = new NoaaAdapter(http, tileSize, options.noaaUrls, (msg) => options.logger.warn(msg))
  } else if (s.kind === 'filter') {
    adapter = new FilterAdapter(s.url, http, tileSize, options.filterListingUrl)
  } else if (/^https?:\/\//.test(s.location)) {
    adapter = new BucketAdapter(s.location, http)
  } else {
    adapter = new DirectoryAdapter(s.location)
  }
  // With a shared Redis, instances fetch each unit once between them (one lock per unit).
  const lockClient = options.redisUrl === undefined
    ? null
    : connectRedis(options.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1000 })
  lockClient?.on('error', () => {}) // reported through onUnreachable when a lock is asked for
  let lockWarned = 0
  const locks = lockClient === null
    ? undefined
    : new RedisUnitLocks(lockClient, options.redisPrefix ?? 'aloft:', (err) => {
      if (Date.now() - lockWarned < 60_000) return
      lockWarned = Date.now()
      options.logger.warn(`unit locks unavailable, fetching without them: ${(err as Error).message}`)
    })
  return new Source({
    adapter,
    locks,
    closeLocks: async () => { lockClient?.disconnect() },
    store: options.store,
    cacheDir: options.cacheDir,
    cacheMaxBytes: options.cacheMaxBytes,
    registry: options.registry,
    logger: options.logger,
    throttle,
    maxTimeOffsetHours: options.maxTimeOffsetHours ?? 3,
    fetcher: { deadlineMs: options.fetchDeadlineMs, ...options.fetch },
    catalog: options.catalog
  })
}
