// Configuration from environment variables, validated once at start. A bad value is an error that
// names the variable and what it accepts; the CLI exits with code 2, never a silent default.
import type { Config } from './config.js'
import { VariableReader } from './reader.js'
import { readRedisPrefix, readRedisUrl } from './redis.js'
import { readSource } from './source.js'
import { UPSTREAM_PER_MINUTE_DEFAULT } from './variables.js'
import { tileTemplateProblem, type MapTiles } from './tile-template.js'
import { readTrustedProxies } from './proxies.js'
import { readProcesses, readWorkers } from './processes.js'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const MIB = 1024 * 1024

/** Public mode's limits, read (and checked) whether or not it is on, so a typo is caught before it is turned on. */
function readPublicTawhiri (read: VariableReader): Config['publicTawhiri'] {
  const on = read.oneOf('ALOFT_PUBLIC_TAWHIRI', ['on', 'off'] as const, 'on or off') === 'on'
  const limits = {
    ratePerSecond: read.number('ALOFT_PUBLIC_RATE_PER_SECOND', (n) => n > 0 && n <= 1_000_000,
      'a number greater than 0 (at most 1000000)'),
    rateBurst: read.int('ALOFT_PUBLIC_RATE_BURST', 1, 1_000_000),
    dailyAllowance: read.int('ALOFT_PUBLIC_DAILY_ALLOWANCE', 0, 1_000_000_000),
    dailyAllowancePerClient: read.int('ALOFT_PUBLIC_DAILY_ALLOWANCE_PER_CLIENT', 0, 1_000_000_000),
    inFlightShare: read.number('ALOFT_PUBLIC_IN_FLIGHT_SHARE', (n) => n > 0 && n <= 1, 'a number over 0, at most 1')
  }
  return on ? limits : undefined
}

/** Every variable read in one pass, in the order its problems are reported. */
export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const read = new VariableReader(env)
  read.refuseUnknown()
  const source = readSource(read)
  const redisUrl = readRedisUrl(read)
  const processes = readProcesses(read, redisUrl)
  const config: Config = {
    port: read.int('PORT', 0, 65535),
    host: read.raw('HOST'),
    redisUrl,
    redisPrefix: readRedisPrefix(read),
    adminToken: read.secret('ALOFT_ADMIN_TOKEN'),
    logLevel: read.oneOf('ALOFT_LOG_LEVEL', LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`),
    source,
    cacheDir: read.raw('ALOFT_CACHE_DIR'),
    dailyAllowance: read.int('ALOFT_DAILY_ALLOWANCE', 0, 1_000_000_000),
    ratePerSecond: read.number('ALOFT_RATE_PER_SECOND', (n) => n > 0 && n <= 1_000_000,
      'a number greater than 0 (at most 1000000)'),
    rateBurst: read.int('ALOFT_RATE_BURST', 1, 1_000_000),
    maxTimeOffsetHours: read.number('ALOFT_MAX_TIME_OFFSET_HOURS', (n) => n >= 0 && n <= 24,
      'a number of hours from 0 to 24'),
    shutdownGraceMs: read.int('ALOFT_SHUTDOWN_GRACE_MS', 0, 600_000),
    cacheMegabytes: read.int('ALOFT_CACHE_MB', 1, 1_048_576),
    processes,
    workers: readWorkers(read, processes),
    interpolateIn: read.oneOf('ALOFT_INTERPOLATE', ['main', 'worker'] as const, 'main or worker'),
    tileDegrees: read.number('ALOFT_TILE_DEGREES', (n) => Number.isInteger(n * 4) && n > 0 && 1440 % (n * 4) === 0,
      'a multiple of 0.25 that divides 360 (e.g. 0.5, 1, 2, 5)'),
    upstreamConcurrency: read.int('ALOFT_UPSTREAM_CONCURRENCY', 1, 64),
    upstreamPerMinute: read.given('ALOFT_UPSTREAM_PER_MINUTE') === undefined
      ? UPSTREAM_PER_MINUTE_DEFAULT[source.kind]
      : read.int('ALOFT_UPSTREAM_PER_MINUTE', 1, 100_000),
    upstreamTimeoutMs: read.int('ALOFT_UPSTREAM_TIMEOUT_MS', 100, 600_000),
    fetchDeadlineMs: read.int('ALOFT_FETCH_DEADLINE_MS', 100, 600_000),
    cacheMaxBytes: read.int('ALOFT_CACHE_MAX_BYTES', 1024 * 1024, Number.MAX_SAFE_INTEGER),
    headersTimeoutMs: read.int('ALOFT_HEADERS_TIMEOUT_MS', 100, 600_000),
    requestTimeoutMs: read.int('ALOFT_REQUEST_TIMEOUT_MS', 100, 3_600_000),
    keepAliveTimeoutMs: read.int('ALOFT_KEEP_ALIVE_TIMEOUT_MS', 0, 600_000),
    maxConnections: read.int('ALOFT_MAX_CONNECTIONS', 1, 1_000_000),
    maxConnectionsPerAddress: read.int('ALOFT_MAX_CONNECTIONS_PER_ADDRESS', 0, 1_000_000),
    trustedProxies: readTrustedProxies(read),
    maxInFlight: read.int('ALOFT_MAX_IN_FLIGHT', 1, 1_000_000),
    maxInFlightPerAccount: read.int('ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT', 1, 1_000_000),
    writeTimeoutMs: read.int('ALOFT_WRITE_TIMEOUT_MS', 100, 3_600_000),
    metricsToken: read.secret('ALOFT_METRICS_TOKEN'),
    metricsPort: read.optionalInt('ALOFT_METRICS_PORT', 0, 65535),
    mapTiles: readMapTiles(read),
    samplesMemoryBytes: read.int('ALOFT_SAMPLES_MEMORY_MB', 16, 1_048_576) * MIB,
    samplesMaxPoints: read.int('ALOFT_SAMPLES_MAX_POINTS', 1, 10_000_000),
    samplesMaxBodyBytes: read.int('ALOFT_SAMPLES_MAX_BODY_MB', 1, 4096) * MIB,
    samplesMaxUnits: read.int('ALOFT_SAMPLES_MAX_UNITS', 1, 10_000),
    samplesWorkerThreshold: read.int('ALOFT_SAMPLES_WORKER_POINTS', 1, 100_000_000),
    trajectoryMaxSteps: read.int('ALOFT_TRAJECTORY_MAX_STEPS', 1, 100_000_000),
    maxKeysPerAccount: read.int('ALOFT_MAX_KEYS_PER_ACCOUNT', 1, 100_000),
    publicTawhiri: readPublicTawhiri(read),
    tawhiriBurstWaitMs: read.int('ALOFT_TAWHIRI_BURST_WAIT_MS', 0, 600_000),
    tawhiriMaxWaiting: read.int('ALOFT_TAWHIRI_MAX_WAITING', 0, 1_000_000)
  }
  const { headersTimeoutMs, requestTimeoutMs } = config
  if (Number.isFinite(headersTimeoutMs) && Number.isFinite(requestTimeoutMs) && headersTimeoutMs > requestTimeoutMs) {
    read.problems.push('ALOFT_HEADERS_TIMEOUT_MS must not exceed ALOFT_REQUEST_TIMEOUT_MS (the headers are part of ' +
      'the request)')
  }
  read.done()
  return config
}

/** The explorer's tile server, when one is configured: a template the page can use. */
function readMapTiles (read: VariableReader): MapTiles | undefined {
  const url = read.given('ALOFT_MAP_TILES_URL')?.trim()
  const attribution = read.raw('ALOFT_MAP_TILES_ATTRIBUTION').trim()
  if (url === undefined || url === '') {
    if (attribution !== '') read.problems.push('ALOFT_MAP_TILES_ATTRIBUTION is set without ALOFT_MAP_TILES_URL')
    return undefined
  }
  const why = tileTemplateProblem(url)
  if (why !== undefined) {
    read.invalid('ALOFT_MAP_TILES_URL', url, `a tile URL template, http(s) with {z}, {x} and {y} (${why})`)
  }
  return { url, attribution }
}
