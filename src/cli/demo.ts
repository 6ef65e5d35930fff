// `aloft demo` (npm run demo): the service offline on the bundled real 2020 GFS sample
// (data/sample, served as a mirror), with the in-memory store, an account made at start and an
// operator token for this run, printed as the export lines every README example reads. It stops
// with whatever started it: package.json's script execs node, so the SIGTERM or SIGINT npm forwards
// reaches the demo itself (through a shell, SIGTERM killed only the shell and SIGINT nothing, leaving
// the demo on its port), and a demo whose parent is gone (npm killed outright) stops itself.
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { wantsHelp } from './help.js'
import { EXIT_CODES, exitCodesText } from './exit-codes.js'
import { packageRoot } from './package.js'
import { configOrExplain, serveUntilSignal, startOrExplain } from './serve.js'

const USAGE = `usage: aloft demo

Serves the bundled real GFS sample (data/sample) offline on http://127.0.0.1:8080 with the
in-memory store, creates an account and prints the export lines the README's examples use: the
service's address (ALOFT_URL), the account's API key (ALOFT_API_KEY) and an operator token for
this run (ALOFT_ADMIN_TOKEN, unless set already); then the valid times the sample holds and the
base URL a Tawhiri client should use (public mode is on: ALOFT_PUBLIC_TAWHIRI=off turns it off).
PORT and HOST may be set in the environment (PORT=0 picks a free port). Ctrl-C stops it.

exit codes:
${exitCodesText()}`

/** Valid times printed per line. */
const TIMES_PER_LINE = 3

/** How often the demo looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 500

export async function run (args: string[]): Promise<number> {
  const parent = process.ppid // before start-up: npm killed while the demo starts counts too
  if (wantsHelp(args)) {
    console.log(USAGE)
    return EXIT_CODES.ok.code
  }
  if (args.length > 0) {
    console.error(`aloft demo takes no arguments (PORT and HOST may be set in the environment): ${args.join(' ')}`)
    return EXIT_CODES.usage.code
  }
  if (!['', '1'].includes((process.env.ALOFT_PROCESSES ?? '').trim())) {
    console.error('aloft demo serves one process with the in-memory store; for several processes on one port run ' +
      '`aloft serve` with REDIS_URL and ALOFT_PROCESSES (README "All the cores of one host")')
    return EXIT_CODES.usage.code
  }
  // an operator token of the caller's, or one made for this run: the admin route exists either way
  const adminToken = process.env.ALOFT_ADMIN_TOKEN || randomBytes(24).toString('base64url')
  const env: NodeJS.ProcessEnv = {
    HOST: '127.0.0.1',
    ALOFT_CACHE_DIR: join(tmpdir(), 'aloft-demo-cache'),
    ALOFT_LOG_LEVEL: 'warn',
    // the Tawhiri clients (chasemapper, the SondeHub predictor, sondehub-tracker) work with a base URL alone
    ALOFT_PUBLIC_TAWHIRI: 'on',
    ...process.env,
    ALOFT_ADMIN_TOKEN: adminToken,
    ALOFT_SOURCE: `mirror:${packageRoot()}data/sample`
  }
  delete env.REDIS_URL // the demo is the embedded, single-process setup
  const config = configOrExplain(env)
  if (config === null) return EXIT_CODES.usage.code
  const service = await startOrExplain(config)
  if (typeof service === 'number') return service
  const account = await service.store.createAccount('demo')
  const { secret } = await service.store.createKey(account.id, 'demo')
  const { validTimesOf } = await import('../source/index.js')
  const times = validTimesOf((await service.source!.describe()).runs)
  const rows: string[] = []
  for (let k = 0; k < times.length; k += TIMES_PER_LINE) {
    rows.push(`    ${times.slice(k, k + TIMES_PER_LINE).join('  ')}`)
  }
  const body = JSON.stringify({
    latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300, 1000, 3000,
      10000], altitude_reference: 'agl'
  })
  console.log(`aloft demo: serving the bundled GFS sample (2020-07-21 … 2020-08-29, 48–56°N 13–25°E) on ${service.url}
  (one process, the in-memory store: ALOFT_PROCESSES and REDIS_URL are for \`aloft serve\`)

  account ${account.id}; this service's address, its API key (shown once) and this run's
  operator token, for the README's examples (paste into your shell):
    export ALOFT_URL=${service.url}
    export ALOFT_API_KEY=${secret}
    export ALOFT_ADMIN_TOKEN=${adminToken}

  valid times with data (a request within ${config.maxTimeOffsetHours} h of one is answered at it):
${rows.join('\n')}

  try:
    curl -s -X POST ${service.url}/v1/atmosphere/profile \\
      -H 'X-API-Key: ${secret}' -H 'Content-Type: application/json' \\
      -d '${body}'

  Tawhiri clients (chasemapper, the SondeHub predictor, sondehub-tracker; README "Use aloft with …"):
    base URL ${tawhiriBase(service.url, secret, config.publicTawhiri !== undefined)}

  explorer: ${service.url}/ (paste the API key at the top of the page)
  also: ${service.url}/v1/atmosphere/capabilities, ${service.url}/openapi.json
  cache: ${config.cacheDir} (the units read, kept across runs; ALOFT_CACHE_DIR moves it)
  Ctrl-C stops it.`)
  stopWithParent(parent)
  await serveUntilSignal(service)
  return EXIT_CODES.ok.code
}

/**
 * Stops the demo as SIGTERM does once the process that started it is gone (npm killed outright): an
 * orphaned demo would keep the port, and the next one would exit 3.
 */
function stopWithParent (parent: number): void {
  const look = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(look)
    process.kill(process.pid, 'SIGTERM')
  }, PARENT_CHECK_MS)
  look.unref()
}

/** The base URL a Tawhiri client is given: without a key in public mode, and with this run's key. */
function tawhiriBase (url: string, key: string, open: boolean): string {
  return `${open ? `${url}/tawhiri (no key: public mode), or ` : ''}${url}/k/${key}/tawhiri`
}
