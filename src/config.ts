// Configuration from environment variables, validated once at start. A bad value is an error
// that names the variable and what it accepts; the CLI exits with code 2, never a silent default.
import type { Level } from 'pino'
import { availableParallelism } from 'node:os'
import { parseRedisUrl } from './redis.js'
import { LIMITS, TRAJECTORY_LIMITS } from './contract/index.js'

export type SourceSetting =
  | { kind: 'noaa' }
  | { kind: 'mirror', location: string }
  | { kind: 'filter', url: string }

export interface Config {
  port: number
  host: string
  redisUrl: string | undefined
  redisPrefix: string
  adminToken: string | undefined
  logLevel: Level | 'silent'
  source: SourceSetting
  cacheDir: string
  dailyAllowance: number
  ratePerSecond: number
  rateBurst: number
  maxTimeOffsetHours: number
  shutdownGraceMs: number
  cacheMegabytes: number
  workers: number
  interpolateIn: 'worker' | 'main'
  tileDegrees: number
  upstreamConcurrency: number
  /** undefined: the source's own default (100/min for NOAA and filters, more for mirrors). */
  upstreamPerMinute: number | undefined
  upstreamTimeoutMs: number
  /** One deadline for everything a request waits for upstream data: queue, single flight, requests, retries. */
  fetchDeadlineMs: number
  /** Raw disk cache bound (bytes); least recently used units go first. */
  cacheMaxBytes: number
  headersTimeoutMs: number
  requestTimeoutMs: number
  keepAliveTimeoutMs: number
  maxConnections: number
  /** Open connections from one client address at most (0: no per-address limit). */
  maxConnectionsPerAddress: number
  maxInFlight: number
  /** Requests of one account handled at once at most. */
  maxInFlightPerAccount: number
  /** How long an answer's queued bytes may wait on a client that reads nothing. */
  writeTimeoutMs: number
  /** /metrics needs `Authorization: Bearer` this token (unset: open). */
  metricsToken: string | undefined
  /** /metrics is served on this port instead of the service's (unset: the service's). */
  metricsPort: number | undefined
  /** Shared memory large samples requests may hold at once (bytes). */
  samplesMemoryBytes: number
  /** Bulk samples: most points, body bytes and distinct source units per request. */
  samplesMaxPoints: number
  samplesMaxBodyBytes: number
  samplesMaxUnits: number
  /** Bulk samples of at least this many points are computed on the worker pool, in slices. */
  samplesWorkerThreshold: number
  /** The most 60 s steps (all ensemble members together) one trajectory request may fly. */
  trajectoryMaxSteps: number
  /** Live API keys per account (as many revoked ones are kept). */
  maxKeysPerAccount: number
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor (readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

interface VariableSpec {
  name: string
  default: string
  about: string
}

/** Every variable aloft reads, with its default and meaning (the README table mirrors this). */
export const VARIABLES: readonly VariableSpec[] = [
  { name: 'PORT', default: '8080', about: 'TCP port to listen on (0 picks a free one)' },
  { name: 'HOST', default: '0.0.0.0', about: 'address to bind' },
  {
    name: 'REDIS_URL', default: '',
    about: 'Redis for accounts, allowances, rate limits, the upstream limiter and unit locks, shared by several ' +
      'instances (redis://, rediss://, or a cluster: redis+cluster://host:port,host:port); ' +
      'unset: an in-memory store inside this process. Redis must persist (AOF or RDB), else a restart loses every ' +
        'account'
  },
  { name: 'ALOFT_REDIS_PREFIX', default: 'aloft:', about: 'prefix of every Redis key aloft writes (no braces)' },
  {
    name: 'ALOFT_ADMIN_TOKEN', default: '',
    about: 'operator token for POST /v1/admin/accounts (at least 16 characters); unset: the route does not exist'
  },
  { name: 'ALOFT_LOG_LEVEL', default: 'info', about: 'fatal, error, warn, info, debug, trace or silent' },
  {
    name: 'ALOFT_SOURCE', default: 'noaa',
    about: 'data source: noaa, mirror:<directory or http(s) URL in the bucket layout>, ' +
      'or filter:<http(s) URL of a grib-filter endpoint>'
  },
  { name: 'ALOFT_CACHE_DIR', default: 'var/cache', about: 'where raw source bytes are kept across restarts' },
  { name: 'ALOFT_DAILY_ALLOWANCE', default: '1000', about: 'upstream attempts per account per UTC day (integer >= 0)' },
  {
    name: 'ALOFT_RATE_PER_SECOND', default: '20',
    about: 'sustained requests per second per account, every keyed route (> 0; a samples request takes one per ' +
      'started 10 000 points, a trajectory one per started 10 000 steps)'
  },
  { name: 'ALOFT_RATE_BURST', default: '40', about: 'request burst per account (integer >= 1)' },
  {
    name: 'ALOFT_MAX_KEYS_PER_ACCOUNT', default: '100',
    about: 'live API keys an account may hold (as many revoked ones are kept and listed; older ones are forgotten)'
  },
  {
    name: 'ALOFT_MAX_TIME_OFFSET_HOURS', default: '3',
    about: 'how far (inclusive) the nearest model time may lie from the requested time before a 404'
  },
  {
    name: 'ALOFT_SHUTDOWN_GRACE_MS', default: '10000',
    about: 'how long SIGTERM/SIGINT waits for in-flight requests before closing them'
  },
  { name: 'ALOFT_CACHE_MB', default: '512', about: 'memory budget (MiB) of decoded units shared by all requests' },
  {
    name: 'ALOFT_WORKERS', default: String(availableParallelism()),
    about: 'decode worker threads (default: the number of cores)'
  },
  {
    name: 'ALOFT_INTERPOLATE', default: 'main',
    about: 'where a cached profile is interpolated from the shared tile: main (the event loop, measured faster) ' +
      'or worker'
  },
  {
    name: 'ALOFT_TILE_DEGREES', default: '1',
    about: 'grib-filter tile edge in degrees (a multiple of 0.25 dividing 360): nearby points share one fetch'
  },
  {
    name: 'ALOFT_FETCH_DEADLINE_MS', default: '20000',
    about: 'how long a request may wait for upstream data in all (fetch queue, another request\'s fetch, ' +
      'upstream requests and retries) before a 503 source_busy'
  },
  {
    name: 'ALOFT_CACHE_MAX_BYTES', default: String(2 * 1024 ** 3),
    about: 'size bound of the raw disk cache (ALOFT_CACHE_DIR); least recently used units are removed first'
  },
  { name: 'ALOFT_HEADERS_TIMEOUT_MS', default: '10000', about: 'time a client has to send a request\'s headers' },
  {
    name: 'ALOFT_REQUEST_TIMEOUT_MS', default: '30000',
    about: 'time a client has to send a whole request (headers and body)'
  },
  { name: 'ALOFT_KEEP_ALIVE_TIMEOUT_MS', default: '5000', about: 'how long an idle connection is kept open' },
  { name: 'ALOFT_MAX_CONNECTIONS', default: '1024', about: 'open connections at most; more are refused' },
  {
    name: 'ALOFT_MAX_CONNECTIONS_PER_ADDRESS', default: '128',
    about: 'open connections from one client address at most; more are answered 503 and closed (0: no limit, e.g. ' +
      'behind a proxy whose own address every connection has)'
  },
  {
    name: 'ALOFT_MAX_IN_FLIGHT', default: '256',
    about: 'requests handled at once at most; beyond, a 503 service_unavailable with Retry-After'
  },
  {
    name: 'ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT', default: '32',
    about: 'requests of one account handled at once at most; beyond, a 429 rate_limited with Retry-After'
  },
  {
    name: 'ALOFT_WRITE_TIMEOUT_MS', default: '30000',
    about: 'how long an answer may wait on a client that reads none of it before the connection is closed'
  },
  {
    name: 'ALOFT_METRICS_TOKEN', default: '',
    about: 'when set (at least 16 characters), /metrics needs Authorization: Bearer <token>'
  },
  {
    name: 'ALOFT_METRICS_PORT', default: '',
    about: 'when set, /metrics is served on this port (same HOST) and not on PORT'
  },
  {
    name: 'ALOFT_SAMPLES_MAX_POINTS', default: String(LIMITS.samplesMaxPoints),
    about: 'most points in one bulk samples request'
  },
  {
    name: 'ALOFT_SAMPLES_MAX_BODY_MB', default: String(LIMITS.samplesMaxBodyBytes / 1024 / 1024),
    about: 'largest bulk samples body (MiB, JSON or Arrow)'
  },
  {
    name: 'ALOFT_SAMPLES_MEMORY_MB', default: '1024',
    about: 'shared memory (MiB) the large bulk samples requests being computed or written may hold together; ' +
      'beyond, a 503 service_unavailable with Retry-After'
  },
  {
    name: 'ALOFT_SAMPLES_MAX_UNITS', default: '32',
    about: 'most distinct source units (run, step and tile or file) one bulk samples request may need'
  },
  {
    name: 'ALOFT_SAMPLES_WORKER_POINTS', default: '32768',
    about: 'bulk samples requests with at least this many points are computed on the worker pool in slices; ' +
      'smaller ones on the main thread'
  },
  {
    name: 'ALOFT_TRAJECTORY_MAX_STEPS', default: String(TRAJECTORY_LIMITS.maxSteps),
    about: 'the most 60 s steps, all ensemble members together, one trajectory request may fly (checked from the ' +
      'request before flying; a request takes one rate token per started 10 000)'
  },
  {
    name: 'ALOFT_UPSTREAM_CONCURRENCY', default: '4',
    about: 'upstream HTTP requests at once (shared by all instances through Redis)'
  },
  {
    name: 'ALOFT_UPSTREAM_PER_MINUTE', default: '',
    about: 'upstream HTTP requests per minute, shared by all instances through Redis; ' +
      'default 100 for noaa and filter (NOAA blocks above 120), 6000 for a mirror'
  },
  { name: 'ALOFT_UPSTREAM_TIMEOUT_MS', default: '30000', about: 'timeout of one upstream HTTP request' }
]

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = []
  const known = new Set(VARIABLES.map((v) => v.name))
  for (const name of Object.keys(env)) {
    if (name.startsWith('ALOFT_') && !known.has(name)) {
      const names = [...known].filter((k) => k.startsWith('ALOFT_')).join(', ')
      problems.push(`${name} is not a variable aloft knows (a typo?); known: ${names}`)
    }
  }
  const raw = (name: string): string => {
    const value = env[name]
    return value === undefined || value === '' ? VARIABLES.find((v) => v.name === name)!.default : value
  }
  const number = (name: string, check: (n: number) => boolean, accepts: string): number => {
    const text = raw(name).trim()
    const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN
    if (!Number.isFinite(n) || !check(n)) {
      problems.push(`${name}=${JSON.stringify(raw(name))} is invalid: expected ${accepts}`)
      return NaN
    }
    return n
  }
  const int = (name: string, min: number, max: number): number =>
    number(name, (n) => Number.isInteger(n) && n >= min && n <= max, `an integer from ${min} to ${max}`)

  const port = int('PORT', 0, 65535)
  const host = raw('HOST')
  const redisUrl = env.REDIS_URL === undefined || env.REDIS_URL === '' ? undefined : env.REDIS_URL
  if (redisUrl !== undefined) {
    try {
      parseRedisUrl(redisUrl)
    } catch (err) {
      problems.push(`REDIS_URL is invalid (${(err as Error).message}): expected ` +
        `redis://[user:password@]host[:port][/db], ` +
        'rediss://…, or a cluster as redis+cluster://[user:password@]host:port,host:port')
    }
  }
  const redisPrefix = raw('ALOFT_REDIS_PREFIX')
  if (!/^[\x21-\x7a|~]{1,64}$/.test(redisPrefix)) {
    // braces would change the hash tags that keep each account's keys in one Redis Cluster slot
    problems.push('ALOFT_REDIS_PREFIX is invalid: expected 1–64 printable characters without spaces or braces')
  }
  const adminToken = env.ALOFT_ADMIN_TOKEN === '' ? undefined : env.ALOFT_ADMIN_TOKEN
  if (adminToken !== undefined && (adminToken.length < 16 || /\s/.test(adminToken))) {
    problems.push('ALOFT_ADMIN_TOKEN is invalid: expected at least 16 characters without white space ' +
      '(the value is not shown)')
  }
  const logLevel = raw('ALOFT_LOG_LEVEL') as Config['logLevel']
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`ALOFT_LOG_LEVEL=${JSON.stringify(logLevel)} is invalid: expected one of ${LOG_LEVELS.join(', ')}`)
  }
  const source = parseSource(raw('ALOFT_SOURCE'), problems)
  const cacheDir = raw('ALOFT_CACHE_DIR')
  const dailyAllowance = int('ALOFT_DAILY_ALLOWANCE', 0, 1_000_000_000)
  const ratePerSecond = number('ALOFT_RATE_PER_SECOND', (n) => n > 0 && n <= 1_000_000,
    'a number greater than 0 (at most 1000000)')
  const rateBurst = int('ALOFT_RATE_BURST', 1, 1_000_000)
  const maxTimeOffsetHours = number('ALOFT_MAX_TIME_OFFSET_HOURS', (n) => n >= 0 && n <= 24,
    'a number of hours from 0 to 24')
  const shutdownGraceMs = int('ALOFT_SHUTDOWN_GRACE_MS', 0, 600_000)
  const cacheMegabytes = int('ALOFT_CACHE_MB', 1, 1_048_576)
  const workers = int('ALOFT_WORKERS', 1, 256)
  const interpolateIn = raw('ALOFT_INTERPOLATE') as Config['interpolateIn']
  if (interpolateIn !== 'main' && interpolateIn !== 'worker') {
    problems.push(`ALOFT_INTERPOLATE=${JSON.stringify(interpolateIn)} is invalid: expected main or worker`)
  }
  const tileDegrees = number('ALOFT_TILE_DEGREES', (n) => Number.isInteger(n * 4) && n > 0 && 1440 % (n * 4) === 0,
    'a multiple of 0.25 that divides 360 (e.g. 0.5, 1, 2, 5)')
  const upstreamConcurrency = int('ALOFT_UPSTREAM_CONCURRENCY', 1, 64)
  const upstreamPerMinute = raw('ALOFT_UPSTREAM_PER_MINUTE') === ''
    ? undefined
    : int('ALOFT_UPSTREAM_PER_MINUTE', 1, 100_000)
  const upstreamTimeoutMs = int('ALOFT_UPSTREAM_TIMEOUT_MS', 100, 600_000)
  const fetchDeadlineMs = int('ALOFT_FETCH_DEADLINE_MS', 100, 600_000)
  const cacheMaxBytes = int('ALOFT_CACHE_MAX_BYTES', 1024 * 1024, Number.MAX_SAFE_INTEGER)
  const headersTimeoutMs = int('ALOFT_HEADERS_TIMEOUT_MS', 100, 600_000)
  const requestTimeoutMs = int('ALOFT_REQUEST_TIMEOUT_MS', 100, 3_600_000)
  const keepAliveTimeoutMs = int('ALOFT_KEEP_ALIVE_TIMEOUT_MS', 0, 600_000)
  const maxConnections = int('ALOFT_MAX_CONNECTIONS', 1, 1_000_000)
  const maxConnectionsPerAddress = int('ALOFT_MAX_CONNECTIONS_PER_ADDRESS', 0, 1_000_000)
  const maxInFlight = int('ALOFT_MAX_IN_FLIGHT', 1, 1_000_000)
  const maxInFlightPerAccount = int('ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT', 1, 1_000_000)
  const writeTimeoutMs = int('ALOFT_WRITE_TIMEOUT_MS', 100, 3_600_000)
  const metricsToken = env.ALOFT_METRICS_TOKEN === undefined || env.ALOFT_METRICS_TOKEN === ''
    ? undefined
    : env.ALOFT_METRICS_TOKEN
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    problems.push('ALOFT_METRICS_TOKEN is invalid: expected at least 16 characters without white space ' +
      '(the value is not shown)')
  }
  const metricsPort = raw('ALOFT_METRICS_PORT') === '' ? undefined : int('ALOFT_METRICS_PORT', 0, 65535)
  const samplesMemoryBytes = int('ALOFT_SAMPLES_MEMORY_MB', 16, 1_048_576) * 1024 * 1024
  const samplesMaxPoints = int('ALOFT_SAMPLES_MAX_POINTS', 1, 10_000_000)
  const samplesMaxBodyBytes = int('ALOFT_SAMPLES_MAX_BODY_MB', 1, 4096) * 1024 * 1024
  const samplesMaxUnits = int('ALOFT_SAMPLES_MAX_UNITS', 1, 10_000)
  const samplesWorkerThreshold = int('ALOFT_SAMPLES_WORKER_POINTS', 1, 100_000_000)
  const trajectoryMaxSteps = int('ALOFT_TRAJECTORY_MAX_STEPS', 1, 100_000_000)
  const maxKeysPerAccount = int('ALOFT_MAX_KEYS_PER_ACCOUNT', 1, 100_000)
  if (Number.isFinite(headersTimeoutMs) && Number.isFinite(requestTimeoutMs) && headersTimeoutMs > requestTimeoutMs) {
    problems.push('ALOFT_HEADERS_TIMEOUT_MS must not exceed ALOFT_REQUEST_TIMEOUT_MS (the headers are part of the ' +
      'request)')
  }

  if (problems.length > 0) throw new ConfigError(problems)
  return {
    port, host, redisUrl, redisPrefix, adminToken, logLevel, source, cacheDir, dailyAllowance, ratePerSecond, rateBurst,
    maxTimeOffsetHours, shutdownGraceMs, cacheMegabytes, workers, interpolateIn, tileDegrees, upstreamConcurrency,
    upstreamPerMinute, upstreamTimeoutMs, fetchDeadlineMs, cacheMaxBytes, headersTimeoutMs, requestTimeoutMs,
    keepAliveTimeoutMs, maxConnections, maxConnectionsPerAddress, maxInFlight, maxInFlightPerAccount,
    writeTimeoutMs, metricsToken, metricsPort, samplesMaxPoints, samplesMaxBodyBytes, samplesMaxUnits,
    samplesMemoryBytes, samplesWorkerThreshold, trajectoryMaxSteps, maxKeysPerAccount
  }
}

function parseSource (value: string, problems: string[]): SourceSetting {
  if (value === 'noaa') return { kind: 'noaa' }
  const colon = value.indexOf(':')
  const kind = colon < 0 ? value : value.slice(0, colon)
  const rest = colon < 0 ? '' : value.slice(colon + 1)
  if (kind === 'mirror' && rest !== '') return { kind: 'mirror', location: rest }
  if (kind === 'filter' && /^https?:\/\/\S+$/.test(rest)) return { kind: 'filter', url: rest }
  const accepts = 'noaa, mirror:<directory or http(s) URL>, or filter:<http(s) URL>'
  problems.push(`ALOFT_SOURCE=${JSON.stringify(value)} is invalid: expected ${accepts}`)
  return { kind: 'noaa' }
}
