// Starting and stopping the service: listen, then on shutdown stop accepting, let in-flight
// requests finish (bounded), close connections and the store.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createStore, type AccountStore } from '../accounts/index.js'
import type { Config } from '../config.js'
import { createLogger, type Logger } from '../logger.js'
import { createMetrics, type Metrics } from '../metrics.js'
import { createApp, type App } from './app.js'

export interface RunningService {
  app: App
  server: Server
  store: AccountStore
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
  const app = createApp({ config, store, logger, metrics, now: options.now })
  const server = createServer({ keepAliveTimeout: 5000 }, app.handler)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => { server.off('error', reject); resolve() })
  })
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
      await store.close()
      logger.info('aloft stopped')
    })()
    return closing
  }
  return { app, server, store, logger, metrics, url, close }
}
