// createSource: the source a setting names — its adapter, the one upstream throttle every request
// passes, unit locks when instances share a Redis — wired into a Source.
import type { Registry } from 'prom-client'
import type { AccountStore } from '../accounts/index.js'
import { UPSTREAM_PER_MINUTE_DEFAULT, type SourceSetting } from '../config/index.js'
import {
  BucketAdapter, DirectoryAdapter, FilterAdapter, NOAA_DEFAULTS, NoaaAdapter, Throttle, type Adapter, type HttpOptions
} from './adapters/index.js'
import { RedisUnitLocks, type FetcherOptions } from './fetch/index.js'
import { Source } from './source.js'
import type { SourceLogger } from './types.js'
import { connectRedis } from '../redis.js'

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
