// What stops the service starting and is the operator's to fix comes out of startService as a
// StartupError with its reason (the CLI's exit code), everything it started closed again.
import t from 'tap'
import { createServer } from 'node:net'
import { loadConfig } from '../src/config/index.js'
import { startService } from '../src/service.js'
import { StartupError } from '../src/startup-error.js'
import { createLogger } from '../src/logger.js'
import { createMetrics } from '../src/metrics.js'
import { SAMPLE_DIR } from './helpers/service.js'

const config = (env: Record<string, string>): ReturnType<typeof loadConfig> => loadConfig({
  ALOFT_SOURCE: `mirror:${SAMPLE_DIR}`, ALOFT_WORKERS: '1', HOST: '127.0.0.1', PORT: '0', ...env
})
async function reason (env: Record<string, string>): Promise<string> {
  const quiet = { logger: createLogger('silent'), metrics: createMetrics({ defaultMetrics: false }) }
  const err = await startService(config(env), quiet).then(
    async (svc) => { await svc.close(); return null }, (e: unknown) => e)
  return err instanceof StartupError ? err.reason : `not a StartupError: ${String(err)}`
}

t.test('a port in use', async (t) => {
  const held = createServer()
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => held.close(() => resolve())))
  t.equal(await reason({ PORT: String((held.address() as { port: number }).port) }), 'port_in_use')
})

t.test('a HOST that is not this machine\'s', async (t) => {
  t.equal(await reason({ HOST: '192.0.2.1' }), 'address_unavailable')
})

t.test('a mirror directory that does not exist, before anything starts', async (t) => {
  t.equal(await reason({ ALOFT_SOURCE: 'mirror:/nonexistent/aloft-mirror' }), 'source_unusable')
})
