// The chaos run's deployment: two aloft instances on one persistent Redis and one cache directory,
// the local NOAA stand-in as their grib filter; the accounts it loads them with, the sample points
// their requests ask for (each account its own grid columns, so the stand-in's requests can be told
// apart by account), and the warm-up of the cached ones.
import { join } from 'node:path'
import { random } from '../random.js'
import { AloftInstance, REPO } from '../processes.js'

export const SAMPLE = join(REPO, 'data/sample')
export const ADMIN_TOKEN = 'chaos-admin-token-0123456789'
/** The sample's grid: 33 rows from 48°N, 49 columns from 13°E, 0.25°. */
const ROWS = 33
const COLS = 49
/** Every valid time the sample holds (one unit per grid point per time with 0.25° filter tiles). */
const TIMES = ['2020-07-21T12:00:00Z', '2020-07-22T06:00:00Z', '2020-07-28T12:00:00Z', '2020-08-04T12:00:00Z',
  '2020-08-04T18:00:00Z', '2020-08-05T00:00:00Z', '2020-08-15T12:00:00Z', '2020-08-15T18:00:00Z',
  '2020-08-29T06:00:00Z']
export const ACCOUNTS = 4

export interface ChaosOptions {
  /** Short phases (the test suite's version, under a minute). */
  short?: boolean
  /** Print progress to stderr. */
  verbose?: boolean
  /**
   * The instances keep aloft's own upstream timeout and fetch deadline (30 s and 20 s) instead of
   * short ones: what a Redis restart costs an operator who changed nothing.
   */
  defaultTimeouts?: boolean
  /** Only the faults whose names start with one of these. */
  only?: string[]
  /** HTTP processes of each instance (ALOFT_PROCESSES; default 1): with more, a fault kills one of them. */
  processes?: number
}

export class Instance extends AloftInstance {
  /** The client has seen it refuse connections (as a load balancer would) and sends elsewhere. */
  down = true
}

export async function startInstance (inst: Instance): Promise<void> {
  await inst.start()
  inst.down = false
}

/** The instances' environment: short timeouts unless `defaultTimeouts`, limits out of the load's way. */
export function instanceEnv (options: ChaosOptions, redisUrl: string, filterUrl: string, dir: string):
NodeJS.ProcessEnv {
  const short = options.short === true
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    ALOFT_REDIS_PREFIX: 'chaos:',
    ALOFT_ADMIN_TOKEN: ADMIN_TOKEN,
    ALOFT_SOURCE: `filter:${filterUrl}`,
    ALOFT_TILE_DEGREES: '0.25',
    ALOFT_CACHE_DIR: join(dir, 'cache'),
    ALOFT_LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'error',
    ALOFT_WORKERS: '1',
    ALOFT_PROCESSES: String(options.processes ?? 1),
    ALOFT_UPSTREAM_PER_MINUTE: '100000',
    ...(options.defaultTimeouts === true ? {} : {
      ALOFT_UPSTREAM_TIMEOUT_MS: short ? '1500' : '5000',
      ALOFT_FETCH_DEADLINE_MS: short ? '2500' : '8000'
    }),
    ALOFT_HEADERS_TIMEOUT_MS: short ? '1000' : '3000',
    ALOFT_REQUEST_TIMEOUT_MS: short ? '2000' : '6000',
    ALOFT_RATE_PER_SECOND: '1000',
    ALOFT_RATE_BURST: '1000',
    ALOFT_DAILY_ALLOWANCE: '1000000',
    ALOFT_SHUTDOWN_GRACE_MS: '500'
  }
}

/** One account per ACCOUNTS, made through the admin API; their keys. */
export async function createAccounts (url: string): Promise<string[]> {
  const keys: string[] = []
  for (let a = 0; a < ACCOUNTS; a++) {
    const res = await fetch(`${url}/v1/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `chaos ${a}` })
    })
    if (res.status !== 201) throw new Error(`account creation answered ${res.status}`)
    keys.push((await res.json() as { key: { key: string } }).key.key)
  }
  return keys
}

export const post = (key: string, path: string, body: string): RequestInit =>
  ({ method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body })

/** The profile bodies of the load: four cached points per account, and cold ones never asked before. */
export class ChaosBodies {
  readonly next = random(15)
  readonly cached = Array.from({ length: ACCOUNTS }, (_, a) =>
    Array.from({ length: 4 }, (_, k) => point(4 + 6 * k, a + 4 * (2 + 2 * k), '2020-08-04T18:00:00Z')))

  private readonly usedCold = new Set<string>()

  /** One of account `a`'s cached bodies, drawn at random. */
  anyCached (a: number): string {
    return this.cached[a][Math.floor(this.next() * 4)]
  }

  /** A point of account `a`'s columns at a time no request asked for before: a unit to fetch. */
  cold (a: number): string {
    for (;;) {
      const row = Math.floor(this.next() * ROWS)
      const col = a + ACCOUNTS * Math.floor(this.next() * Math.floor(COLS / ACCOUNTS))
      const time = TIMES[Math.floor(this.next() * TIMES.length)]
      const id = `${row}/${col}/${time}`
      if (!this.usedCold.has(id)) { this.usedCold.add(id); return point(row, col, time) }
    }
  }
}

function point (row: number, col: number, time: string): string {
  return JSON.stringify({
    latitude: 48 + row * 0.25, longitude: 13 + col * 0.25, time, altitudes_m: [1000, 5000], altitude_reference: 'agl'
  })
}

/** The cached points asked on both instances (each account's own) before the load starts. */
export async function warmUp (instances: Instance[], keys: string[], cached: string[][]): Promise<void> {
  for (let a = 0; a < ACCOUNTS; a++) {
    for (const body of cached[a]) {
      for (const inst of instances) {
        // a 503 source_busy is the designed answer while the other instance holds the unit's
        // fetch (slow on a loaded machine): the warm-up waits and asks again, as a client would
        let res = await fetch(`${inst.url}/v1/atmosphere/profile`, post(keys[a], '', body))
        for (let retry = 0; res.status === 503 && retry < 5; retry++) {
          const wait = 1000 * Math.min(2, Number(res.headers.get('retry-after') ?? 1))
          await new Promise((resolve) => setTimeout(resolve, wait))
          res = await fetch(`${inst.url}/v1/atmosphere/profile`, post(keys[a], '', body))
        }
        if (res.status !== 200) throw new Error(`warm-up answered ${res.status}: ${await res.text()}`)
      }
    }
  }
}
