// The configuration every room reads: the environment's variables (variables.ts), each checked
// (load.ts), as one typed record.
import type { Level } from 'pino'
import type { MapTiles } from './tile-template.js'
import type { TrustedProxy } from './proxies.js'

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
  /** HTTP processes on this host (ALOFT_PROCESSES, `auto` resolved to the cores). */
  processes: number
  /** Worker threads of each process. */
  workers: number
  interpolateIn: 'worker' | 'main'
  tileDegrees: number
  upstreamConcurrency: number
  /** Unset: UPSTREAM_PER_MINUTE_DEFAULT for the source's kind. */
  upstreamPerMinute: number
  upstreamTimeoutMs: number
  /** One deadline for everything a request waits for upstream data: queue, single flight, requests, retries. */
  fetchDeadlineMs: number
  /** Raw disk cache bound (bytes); least recently used units go first. */
  cacheMaxBytes: number
  headersTimeoutMs: number
  requestTimeoutMs: number
  keepAliveTimeoutMs: number
  maxConnections: number
  /** Open connections from one client address (IPv6: /64) at most (0: no per-address limit). */
  maxConnectionsPerAddress: number
  /** Proxies whose X-Forwarded-For / Forwarded are believed (docs/DESIGN.md §10); empty: none. */
  trustedProxies: TrustedProxy[]
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
  /** The explorer map's tiles; undefined: the bundled map. */
  mapTiles: MapTiles | undefined
  /** Live API keys per account (as many revoked ones are kept). */
  maxKeysPerAccount: number
  /**
   * Public mode of the Tawhiri paths (docs/DESIGN.md §9, §10): callers without a key admitted, each
   * client address with its own rate and daily share, all together with one daily allowance and a
   * share of the instance; undefined: off.
   */
  publicTawhiri: PublicMode | undefined
  /** How long a Tawhiri-path request may wait its turn for a rate token or an in-flight slot before a 429. */
  tawhiriBurstWaitMs: number
  /** Tawhiri-path requests waiting their turn on this instance at most (docs/DESIGN.md §10). */
  tawhiriMaxWaiting: number
}

/** Public mode's limits (docs/DESIGN.md §9, §10). */
export interface PublicMode {
  /** Each client's rate. */
  ratePerSecond: number
  rateBurst: number
  /** Upstream attempts per UTC day all public callers share, and each client's share of them. */
  dailyAllowance: number
  dailyAllowancePerClient: number
  /** The part of ALOFT_MAX_IN_FLIGHT public callers may hold together, in (0, 1]. */
  inFlightShare: number
}
