// `aloft serve`: configuration from the environment (exit 2 on a bad value), then run until
// SIGTERM/SIGINT, then stop gracefully and exit 0.
import { ConfigError, loadConfig, type Config } from '../config.js'
import { startService, type RunningService } from '../service.js'

/** Loads configuration, printing the reasons and returning null when it is invalid. */
export function configOrExplain (env: NodeJS.ProcessEnv): Config | null {
  try {
    return loadConfig(env)
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`aloft: ${err.message}`)
      return null
    }
    throw err
  }
}

/**
 * Resolves when SIGTERM or SIGINT has stopped the service gracefully. Meanwhile a promise that
 * rejects with nobody listening is logged, not fatal: one stray failure (a dependency's
 * reconnect, a client gone) must not end the service for everyone.
 */
export async function serveUntilSignal (service: RunningService): Promise<void> {
  process.on('unhandledRejection', (reason) => {
    service.logger.error({ err: reason }, 'a promise rejected with no handler')
  })
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      service.logger.info({ signal }, 'shutting down')
      void service.close().then(resolve)
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
}

export async function run (args: string[]): Promise<number> {
  if (args.length > 0) {
    console.error(`aloft serve takes no arguments (configure it with environment variables; see the README): ` +
      `${args.join(' ')}`)
    return 2
  }
  const config = configOrExplain(process.env)
  if (config === null) return 2
  await serveUntilSignal(await startService(config))
  return 0
}
