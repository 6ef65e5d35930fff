// `aloft serve`: configuration from the environment (exit 2 on a bad value), then run until
// SIGTERM/SIGINT, then stop gracefully and exit 0. Start-up failures the operator can fix are one
// line and an exit code of their own (exit-codes.ts).
import { ConfigError, loadConfig, VARIABLES, type Config } from '../config/index.js'
import type { RunningService, StartOptions } from '../service.js'
import { StartupError } from '../startup-error.js'
import { wantsHelp } from './help.js'
import { EXIT_CODES, exitCodesText } from './exit-codes.js'

const USAGE = `usage: aloft serve

Runs the HTTP service until SIGTERM or SIGINT, configured only by environment variables
(see the README's Configuration table):

${VARIABLES.map((v) => `  ${v.name.padEnd(28)} default ${v.default === '' ? '(unset)' : v.default}`).join('\n')}

exit codes:
${exitCodesText()}`

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
 * Starts the service, or prints why it cannot and returns the exit code for that. The service is
 * imported only here, so `--help` answers without loading it.
 */
export async function startOrExplain (config: Config, options?: StartOptions): Promise<RunningService | number> {
  const { startService } = await import('../service.js')
  try {
    return await startService(config, options)
  } catch (err) {
    if (!(err instanceof StartupError)) throw err
    console.error(`aloft: ${err.message}`)
    return EXIT_CODES[err.reason].code
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
    let stopping = false
    // a second signal (Ctrl-C twice, a service manager signalling the whole group) must not end the drain
    const stop = (signal: string): void => {
      if (stopping) return
      stopping = true
      service.logger.info({ signal }, 'shutting down')
      void service.close().then(resolve)
    }
    process.on('SIGTERM', () => stop('SIGTERM'))
    process.on('SIGINT', () => stop('SIGINT'))
  })
}

export async function run (args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    console.log(USAGE)
    return EXIT_CODES.ok.code
  }
  if (args.length > 0) {
    console.error(`aloft serve takes no arguments (configure it with environment variables; see the README): ` +
      `${args.join(' ')}`)
    return EXIT_CODES.usage.code
  }
  const config = configOrExplain(process.env)
  if (config === null) return EXIT_CODES.usage.code
  if (config.processes > 1) return await serveHost(config)
  const service = await startOrExplain(config)
  if (typeof service === 'number') return service
  await serveUntilSignal(service)
  return EXIT_CODES.ok.code
}

/**
 * Several processes on one port (ALOFT_PROCESSES > 1, docs/DESIGN.md §11): the primary supervises
 * them and ends with the host's exit code; each of them is this same command, serving its share.
 */
async function serveHost (config: Config): Promise<number> {
  const host = await import('../cluster/index.js')
  const { createLogger, linesWritten } = await import('../logger.js')
  const { createMetrics } = await import('../metrics.js')
  const logger = createLogger(config.logLevel)
  if (host.isPrimary()) {
    return await new host.Supervisor({ processes: config.processes, shutdownGraceMs: config.shutdownGraceMs, logger })
      .run()
  }
  const metrics = createMetrics()
  const link = host.joinHost(metrics, config.processes)
  try {
    const service = await startOrExplain(host.processConfig(config),
      { logger: logger.child({ pid: process.pid }), metrics, host: link.state })
    if (typeof service === 'number') return service
    // its "aloft listening" line reaches the shared stdout before the primary's, which says the host serves
    await linesWritten(service.logger)
    link.ready(service.url)
    await serveUntilSignal(service)
    return EXIT_CODES.ok.code
  } finally {
    link.leave() // the channel to the primary would keep this process alive, whatever ended it
  }
}
