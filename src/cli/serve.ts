// `aloft serve`: configuration from the environment (exit 2 on a bad value), then run until
// SIGTERM/SIGINT, then stop gracefully and exit 0.
import { ConfigError, loadConfig } from '../config.js'
import { startService } from '../http/server.js'

export async function run (args: string[]): Promise<number> {
  if (args.length > 0) {
    console.error(`aloft serve takes no arguments (configure it with environment variables; see the README): ${args.join(' ')}`)
    return 2
  }
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`aloft: ${err.message}`)
      return 2
    }
    throw err
  }
  const service = await startService(config)
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      service.logger.info({ signal }, 'shutting down')
      void service.close().then(resolve)
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
  return 0
}
