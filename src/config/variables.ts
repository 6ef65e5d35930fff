// Every variable aloft reads: its name, default and meaning, in the order `aloft serve --help`
// and the README's configuration table list them (a test holds the README to it). How each value
// is checked is load.ts's.
import { availableParallelism } from 'node:os'
import { LIMITS, TRAJECTORY_LIMITS } from '../contract/index.js'

export interface VariableSpec {
  name: string
  default: string
  about: string
}

/**
 * Upstream requests per minute when ALOFT_UPSTREAM_PER_MINUTE is unset: NOAA blocks clients above
 * 120, a mirror is ours. The loader applies it and `aloft serve --help` prints it.
 */
export const UPSTREAM_PER_MINUTE_DEFAULT = { noaa: 100, filter: 100, mirror: 6000 } as const

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
    name: 'ALOFT_PROCESSES', default: '1',
    about: 'HTTP processes serving one port, a primary supervising them (node:cluster; auto: one per core). More ' +
      'than 1 needs REDIS_URL; ALOFT_CACHE_MB and ALOFT_SAMPLES_MEMORY_MB are then the host\'s, split between them'
  },
  {
    name: 'ALOFT_WORKERS', default: `${availableParallelism()} ÷ processes`,
    about: 'decode worker threads of each process (default: the cores divided among ALOFT_PROCESSES, at least 1)'
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
    about: 'open connections from one client address (IPv6: one /64) at most; the one too many is answered 503 ' +
      'and closed (0: no limit); a trusted proxy\'s connections are not counted'
  },
  {
    name: 'ALOFT_TRUSTED_PROXIES', default: '',
    about: 'the reverse proxies in front of aloft, each by its own address (or a CIDR block holding proxies only), ' +
      'comma-separated (e.g. 127.0.0.1, the proxy\'s own address): for a request from one of them the client is the ' +
      'right-most address of X-Forwarded-For (or Forwarded: for=) that is not one of them; a client whose own ' +
      'address is listed is believed too, and chooses whom it is counted as; unset: every peer is the client and ' +
      'those headers are ignored'
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
    name: 'ALOFT_MAP_TILES_URL', default: '',
    about: 'the explorer map\'s raster tiles: a URL template, http(s), with {z}, {x}, {y} (and {s} for the ' +
      'subdomains a, b, c); the page\'s CSP then allows images from its origins; unset: the bundled map'
  },
  {
    name: 'ALOFT_MAP_TILES_ATTRIBUTION', default: '',
    about: 'plain text shown in the map\'s corner with the tiles (an http(s) address in it becomes a link)'
  },
  {
    name: 'ALOFT_UPSTREAM_CONCURRENCY', default: '4',
    about: 'upstream HTTP requests at once (shared by all instances through Redis)'
  },
  {
    name: 'ALOFT_UPSTREAM_PER_MINUTE',
    default: `${UPSTREAM_PER_MINUTE_DEFAULT.noaa} (noaa, filter), ${UPSTREAM_PER_MINUTE_DEFAULT.mirror} (mirror)`,
    about: 'upstream HTTP requests per minute, shared by all instances through Redis (NOAA blocks above 120)'
  },
  { name: 'ALOFT_UPSTREAM_TIMEOUT_MS', default: '30000', about: 'timeout of one upstream HTTP request' },
  {
    name: 'ALOFT_PUBLIC_TAWHIRI', default: 'off',
    about: 'on: the Tawhiri paths (/api/v1/, /tawhiri, /api/datasetcheck, /api/ruaumoko/) answer callers without ' +
      'a key, each client address with its own rate, all of them with one shared daily allowance (demo: on)'
  },
  { name: 'ALOFT_PUBLIC_RATE_PER_SECOND', default: '20', about: 'public mode: requests per second per client address' },
  { name: 'ALOFT_PUBLIC_RATE_BURST', default: '40', about: 'public mode: request burst per client address' },
  {
    name: 'ALOFT_PUBLIC_DAILY_ALLOWANCE', default: '200',
    about: 'public mode: upstream attempts per UTC day all public callers share (integer >= 0)'
  },
  {
    name: 'ALOFT_PUBLIC_DAILY_ALLOWANCE_PER_CLIENT', default: '20',
    about: 'public mode: upstream attempts per UTC day each client address may use of the shared ones ' +
      '(integer >= 0), so one stranger cannot spend everyone\'s day'
  },
  {
    name: 'ALOFT_PUBLIC_IN_FLIGHT_SHARE', default: '0.5',
    about: 'public mode: the part of ALOFT_MAX_IN_FLIGHT callers without a key may hold together (over 0, at most ' +
      '1): key holders, /readyz and /healthz always find room'
  },
  {
    name: 'ALOFT_TAWHIRI_BURST_WAIT_MS', default: '30000',
    about: 'how long a request on a Tawhiri path waits its turn for a rate token or an in-flight slot before a 429 ' +
      '(a page\'s burst, such as the SondeHub predictor\'s 169 hourly flights, is answered, not refused)'
  },
  {
    name: 'ALOFT_TAWHIRI_MAX_WAITING', default: '1024',
    about: 'requests on the Tawhiri paths waiting their turn on this instance at most (each caller: at most its ' +
      'burst); beyond, an immediate 429 with Retry-After. Waiting requests hold no ALOFT_MAX_IN_FLIGHT slot'
  }
]

/**
 * The `aloft` command's own variables, read by its client commands (`aloft trajectory`), never by
 * the service: the service accepts them in its environment, so one shell can hold both.
 */
export const CLIENT_VARIABLES: readonly VariableSpec[] = [
  { name: 'ALOFT_URL', default: 'http://127.0.0.1:8080', about: 'the service `aloft trajectory` asks' },
  { name: 'ALOFT_API_KEY', default: '', about: 'the API key `aloft trajectory` sends' }
]
