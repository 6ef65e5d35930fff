// Starting and stopping the service: listen, then on shutdown stop accepting, let in-flight
// requests finish (bounded), close connections and the store.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createStore, type AccountStore } from '../accounts/index.js'
import type { Config } from '../config.js'
import { createLogger, type Logger } from '../logger.js'
import { createMetrics, type Metrics } from '../metrics.js'
import { createApp, type App } from './app.js'
import { createSource, type Source } from '../source/index.js'
import { createPool } from '../profile/pool.js'
import { ProfileService } from '../profile/service.js'

export interface RunningService {
  app: App
  server: Server
  store: AccountStore
  source: Source | undefined
  profiles: ProfileService | undefined
  logger: Logger
  metrics: Metrics
  url: string
  /** Graceful stop; resolves when everything is closed. Safe to call twice. */
  close: () => Promise<void>
}

export interface StartOptions {
  logger?: Logger
  store?: AccountStore
  metrics?: Metrics
  now?: () => number
  /** false: no data path (the profile route answers 503). */
  dataPath?: boolean
}

export async function startService (config: Config, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel)
  const metrics = options.metrics ?? createMetrics()
  const store = options.store ?? createStore({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    limits: { dailyAllowance: config.dailyAllowance, ratePerSecond: config.ratePerSecond, rateBurst: config.rateBurst },
    logger
  })
  let source: Source | undefined
  let profiles: ProfileService | undefined
  if (options.dataPath !== false) {
    source = createSource({
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
      requestTimeoutMs: config.upstreamTimeoutMs
    })
    profiles = new ProfileService({
      source,
      pool: createPool({ threads: config.workers }),
      registry: metrics.registry,
      cacheBytes: config.cacheMegabytes * 1024 * 1024,
      interpolateIn: config.interpolateIn
    })
  }
  const app = createApp({ config, store, logger, metrics, now: options.now, source, profiles })
  const server = createServer({ keepAliveTimeout: 5000 }, app.handler)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.port, config.host, () => { server.off('error', reject); resolve() })
    })
  } catch (err) {
    await profiles?.close()
    await source?.close()
    await store.close()
    throw err
  }
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${address.port}`
  logger.info({ url, store: store.kind, source: config.source.kind }, 'aloft listening')

  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= (async () => {
      app.draining = true
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      const deadline = Date.now() + config.shutdownGraceMs
      while (app.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      if (app.inFlight() > 0) logger.warn({ in_flight: app.inFlight() }, 'shutdown grace ended; closing remaining connections')
      server.closeAllConnections()
      await stopped
      await profiles?.close()
      await source?.close()
      await store.close()
      logger.info('aloft stopped')
    })()
    return closing
  }
  return { app, server, store, source, profiles, logger, metrics, url, close }
}
