// `aloft demo` (npm run demo): the service offline on the bundled real 2020 GFS sample
// (data/sample, served as a mirror), with the in-memory store and an account made at start.
import { fileURLToPath } from 'node:url'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startService } from '../service.js'
import { configOrExplain, serveUntilSignal } from './serve.js'

/** The sample ships beside dist/ and src/ alike. */
function sampleDir (): string {
  const here = import.meta.url
  return fileURLToPath(new URL(here.includes('/dist/') ? '../../../data/sample' : '../../data/sample', here))
}

export async function run (args: string[]): Promise<number> {
  if (args.length > 0) {
    console.error(`aloft demo takes no arguments (PORT and HOST may be set in the environment): ${args.join(' ')}`)
    return 2
  }
  const env: NodeJS.ProcessEnv = {
    HOST: '127.0.0.1',
    ALOFT_CACHE_DIR: join(tmpdir(), 'aloft-demo-cache'),
    ALOFT_LOG_LEVEL: 'warn',
    ...process.env,
    ALOFT_SOURCE: `mirror:${sampleDir()}`
  }
  delete env.REDIS_URL // the demo is the embedded, single-process setup
  const config = configOrExplain(env)
  if (config === null) return 2
  const service = await startService(config)
  const account = await service.store.createAccount('demo')
  const { secret } = await service.store.createKey(account.id, 'demo')
  const body = JSON.stringify({
    latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300, 1000, 3000,
      10000], altitude_reference: 'agl'
  })
  console.log(`aloft demo: serving the bundled GFS sample (2020-07-21 … 2020-08-29, 48–56°N 13–25°E) on ${service.url}

  account ${account.id}, API key (shown once):
    ${secret}

  try:
    curl -s -X POST ${service.url}/v1/atmosphere/profile \\
      -H 'X-API-Key: ${secret}' -H 'Content-Type: application/json' \\
      -d '${body}'

  explorer: ${service.url}/ (paste the API key at the top of the page)
  also: ${service.url}/v1/atmosphere/capabilities, ${service.url}/openapi.json
  Ctrl-C stops it.`)
  await serveUntilSignal(service)
  return 0
}
