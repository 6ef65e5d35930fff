// The composition root: configuration → account store → source → field → capabilities → routes
// → HTTP. `aloft serve`, `aloft demo`, the benchmarks and the tests all start aloft here.
import type { Server } from 'node:http'
import { createStore, type AccountStore } from './accounts/index.js'
import type { Config } from './config/index.js'
import { createLogger, type Logger } from './logger.js'
import { createMetrics, type Metrics } from './metrics.js'
import { createSource, mirrorDirectoryProblem, type Source } from './source/index.js'
import { Field, createPool } from './field/index.js'
import { ProfileService } from './profile/index.js'
import { SamplesEngine } from './samples/index.js'
import { TrajectoryService } from './trajectory/index.js'
import { TRAJECTORY_LIMITS, type HostProcesses } from './contract/index.js'
import { createApp, type App, type CloseMode, listen, type HttpServer, publicModeMetrics } from './http/index.js'
import { StartupError, listenFailure } from './startup-error.js'

export interface RunningService {
  app: App
  server: Server
  store: AccountStore
  source: Source | undefined
  field: Field | undefined
  profiles: ProfileService | undefined
  samples: SamplesEngine | undefined
  trajectories: TrajectoryService | undefined
  logger: Logger
  metrics: Metrics
  url: string
  /** Where /metrics is served when ALOFT_METRICS_PORT moves it off the service's port. */
  metricsUrl: string | undefined
  /**
   * Graceful stop (`drain`, the default: see src/http/server.ts; `now` closes idle connections at
   * once); resolves when everything is closed. Safe to call twice: the first call's mode holds.
   */
  close: (mode?: CloseMode) => Promise<void>
}

export interface StartOptions {
  logger?: Logger
  store?: AccountStore
  metrics?: Metrics
  now?: () => number
  /** false: no data path (the data routes answer 503). */
  dataPath?: boolean
  /** The host's processes, when this is one of several (src/cluster). */
  host?: () => HostProcesses
}

interface DataPath {
  source: Source
  field: Field
  profiles: ProfileService
  samples: SamplesEngine
  trajectories: TrajectoryService
}

function dataPath (config: Config, store: AccountStore, logger: Logger, metrics: Metrics): DataPath {
  const source = createSource({
    setting: config.source,
    cacheDir: config.cacheDir,
    registry: metrics.registry,
    store,
    logger: { warn: (msg) => logger.warn(msg), info: (msg) => logger.info(msg), error: (msg) => logger.error(msg) },
    maxTimeOffsetHours: config.maxTimeOffsetHours,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    tileDegrees: config.tileDegrees,
    upstreamConcurrency: config.upstreamConcurrency,
    upstreamPerMinute: config.upstreamPerMinute,
    requestTimeoutMs: config.upstreamTimeoutMs,
    fetchDeadlineMs: config.fetchDeadlineMs,
    cacheMaxBytes: config.cacheMaxBytes
  })
  const field = new Field({
    source,
    pool: createPool({ threads: config.workers }),
    registry: metrics.registry,
    cacheBytes: config.cacheMegabytes * 1024 * 1024
  })
  const samples = new SamplesEngine({ source, field, store, registry: metrics.registry,
    maxUnits: config.samplesMaxUnits, workerThreshold: config.samplesWorkerThreshold,
    memoryBytes: config.samplesMemoryBytes })
  const profiles = new ProfileService({
    source, field, interpolateIn: config.interpolateIn, registry: metrics.registry
  })
  const trajectories = new TrajectoryService({ engine: samples, source, maxSteps: config.trajectoryMaxSteps,
    maxPoints: TRAJECTORY_LIMITS.maxAnswerPoints })
  return { source, field, profiles, samples, trajectories }
}

function dataParts (
  data: DataPath | undefined
): Pick<RunningService, 'source' | 'field' | 'profiles' | 'samples' | 'trajectories'> {
  return {
    source: data?.source, field: data?.field, profiles: data?.profiles, samples: data?.samples,
    trajectories: data?.trajectories
  }
}

/** A mirror directory must hold GFS files before anything starts (a URL is the readiness check's). */
async function checkSource (config: Config): Promise<void> {
  const s = config.source
  if (s.kind !== 'mirror' || /^https?:\/\//.test(s.location)) return
  const problem = await mirrorDirectoryProblem(s.location)
  if (problem !== null) throw new StartupError('source_unusable', `ALOFT_SOURCE: ${problem}`)
}

/**
 * Starts everything and listens. What the operator must fix (a busy port, a wrong mirror path)
 * is a StartupError; anything else thrown is a bug.
 */
export async function startService (config: Config, options: StartOptions = {}): Promise<RunningService> {
  if (options.dataPath !== false) await checkSource(config)
  const logger = options.logger ?? createLogger(config.logLevel)
  const metrics = options.metrics ?? createMetrics()
  const store = options.store ?? createStore({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    limits: { dailyAllowance: config.dailyAllowance, ratePerSecond: config.ratePerSecond, rateBurst: config.rateBurst,
      maxKeys: config.maxKeysPerAccount, public: config.publicTawhiri },
    logger
  })
  publicModeMetrics(metrics, store, config.publicTawhiri)
  const data = options.dataPath === false ? undefined : dataPath(config, store, logger, metrics)
  const closeData = async (): Promise<void> => {
    await data?.field.close()
    await data?.source.close()
  }
  const deps = { config, store, logger, metrics, now: options.now, host: options.host, ...dataParts(data) }
  const app = createApp(deps)
  const httpOptions = {
    ...config, onConnectionRefused: () => metrics.httpCutOff.labels('connections_per_address').inc()
  }
  let http: HttpServer | undefined
  let metricsHttp: HttpServer | undefined
  let port = config.port
  try {
    http = await listen(app, httpOptions, logger)
    if (config.metricsPort !== undefined) {
      port = config.metricsPort
      metricsHttp = await listen(createApp(deps, 'metrics'), { ...httpOptions, port }, logger)
    }
  } catch (err) {
    await http?.close()
    await closeData()
    await store.close()
    throw listenFailure(err, config.host, port) ?? err
  }
  const served = http
  logger.info({ url: http.url, processes: config.processes, store: store.kind, source: config.source.kind,
    ...(metricsHttp !== undefined ? { metrics_url: metricsHttp.url } : {}) }, 'aloft listening')

  let closing: Promise<void> | undefined
  const close = (mode?: CloseMode): Promise<void> => {
    closing ??= (async () => {
      await Promise.all([metricsHttp?.close(mode), served.close(mode)])
      await closeData()
      await store.close()
      logger.info('aloft stopped')
    })()
    return closing
  }
  return { app, server: served.server, url: served.url, metricsUrl: metricsHttp?.url, store, logger, metrics,
    ...dataParts(data), close }
}
