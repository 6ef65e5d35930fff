// bench/cores: all the cores of one host (docs/DESIGN.md §11). `aloft serve` with ALOFT_PROCESSES=1
// and =2 side by side on one Redis, in the same run, rounds alternated (1 then 2, then 2 then 1, …):
// cached profiles (one hot body, and bodies that never repeat) by wrk -t1 -c64, bulk samples
// (100 000 points, Arrow in and out) and single flights by concurrent clients. Beside each rate:
// the CPU a request took in the whole host (primary and every process, all threads) and in Redis.
// Then how the two processes share the port (docs/DESIGN.md §11): each process accepting from the
// shared socket itself (SCHED_NONE, aloft's choice) against node's round-robin hand-out by the primary
// (NODE_CLUSTER_SCHED_POLICY=rr), alternated, for kept-alive connections and a new connection a
// request: req/s, the host's CPU a request, the primary's, and the balance (the less busy process's
// share of the two processes' CPU).
//   npm run build && node dist/bench/cores.js [--seconds 5] [--pairs 3]
//     [--only hot,fresh,samples,flights,policies]
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { int, LOAD_ENV, machine, ms, numberArg, SAMPLE, table, track, stop, writeResult } from './lib/index.js'
import { freshProfileBodies, profileBody } from './lib/bodies.js'
import { arrowBody, randomPoints } from './lib/sample-points.js'
import { closedLoop, type ClosedTarget } from './lib/wrk.js'
import { freePort, pingRedis, processesOf, REPO, waitFor } from './lib/processes.js'
import { ownCpuUs, treeCpuUs } from './lib/process-cpu.js'

const SECONDS = numberArg('seconds', 5)
const PAIRS = numberArg('pairs', 3)
const onlyAt = process.argv.indexOf('--only')
const ONLY = onlyAt > 0 ? new Set(process.argv[onlyAt + 1].split(',')) : null
const ADMIN = 'bench-cores-admin-token-0123456789'
const SAMPLE_POINTS = 100_000
const ARROW = 'application/vnd.apache.arrow.stream'
const FLIGHT = { launch_latitude: 52.2, launch_longitude: 21.0, launch_datetime: '2020-08-04T12:00:00Z',
  launch_altitude: 100, ascent_rate: 5, burst_altitude: 30000, descent_rate: 5 }
/** Clients at once for the samples and flight rows: enough to keep every process busy. */
const CLIENTS = 4

interface Host { processes: number, url: string, key: string, child: ChildProcess }
interface Measured { rate: number, count: number, cpuUs: number, redisCpuUs: number, errors: number }

const dir = await mkdtemp(join(tmpdir(), 'aloft-bench-cores-'))
const redisPort = await freePort()
// no persistence: an append-only file synced on every write would measure the disk, not Redis
const redis = track(spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '',
  '--appendonly', 'no'], { stdio: 'ignore' }))

async function startHost (processes: number, policy: 'none' | 'rr' = 'none'): Promise<Host> {
  const port = await freePort()
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ALOFT_') &&
    !['REDIS_URL', 'PORT', 'HOST'].includes(k)))
  const child = track(spawn(process.execPath, [join(REPO, 'dist/src/cli/main.js'), 'serve'], {
    env: { ...clean, ...LOAD_ENV, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      ALOFT_REDIS_PREFIX: `bench-cores-${processes}-${policy}:`, ALOFT_PROCESSES: String(processes),
      ...(policy === 'rr' ? { NODE_CLUSTER_SCHED_POLICY: 'rr' } : {}),
      ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_CACHE_DIR: join(dir, 'cache'), ALOFT_ADMIN_TOKEN: ADMIN,
      ALOFT_LOG_LEVEL: 'warn', ALOFT_SAMPLES_MAX_POINTS: String(SAMPLE_POINTS),
      // one account stands for the many callers of a loaded host
      ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT: '100000' },
    stdio: ['ignore', 'inherit', 'inherit']
  }))
  const url = `http://127.0.0.1:${port}`
  await waitFor(`aloft with ${processes} processes`, async () => (await fetch(`${url}/readyz`)).ok, 60_000)
  const made = await fetch(`${url}/v1/admin/accounts`, { method: 'POST', body: JSON.stringify({ name: 'bench' }),
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' } })
  const { key } = await made.json() as { key: { key: string } }
  return { processes, url, key: key.key, child }
}

async function post (host: Host, path: string, body: string | Uint8Array, type = 'application/json'):
Promise<{ status: number, bytes: number }> {
  const res = await fetch(`${host.url}${path}`, { method: 'POST', body,
    headers: { 'x-api-key': host.key, 'content-type': type, accept: type } })
  return { status: res.status, bytes: (await res.arrayBuffer()).byteLength }
}

const hot = profileBody()
const samplesBody = arrowBody(randomPoints(SAMPLE_POINTS, 5))
const SAMPLES_PATH = '/v1/atmosphere/samples?altitude_reference=agl'

/** Every process decodes what the rows read: many requests on fresh connections reach each of them. */
async function warm (host: Host): Promise<void> {
  const fresh = freshProfileBodies(1)
  for (let round = 0; round < 4 * host.processes; round++) {
    const answers = await Promise.all([
      ...Array.from({ length: 16 }, async () => await post(host, '/v1/atmosphere/profile', fresh())),
      post(host, '/v1/atmosphere/profile', hot),
      post(host, SAMPLES_PATH, samplesBody, ARROW),
      post(host, '/v1/atmosphere/trajectory', JSON.stringify(FLIGHT))
    ])
    const bad = answers.find((a) => a.status !== 200)
    if (bad !== undefined) throw new Error(`warm-up answered ${bad.status}`)
  }
}

async function measured (host: Host, run: () => Promise<{ count: number, errors: number, seconds: number }>):
Promise<Measured> {
  const cpu0 = await treeCpuUs(host.child.pid!)
  const redis0 = await treeCpuUs(redis.pid!)
  const r = await run()
  const cpuUs = await treeCpuUs(host.child.pid!) - cpu0
  const redisCpuUs = await treeCpuUs(redis.pid!) - redis0
  return { rate: r.count / r.seconds, count: r.count, cpuUs, redisCpuUs, errors: r.errors }
}

let freshSeed = 2000
async function profiles (host: Host, mix: 'hot' | 'fresh'): Promise<Measured> {
  const target: ClosedTarget = { url: `${host.url}/v1/atmosphere/profile`, method: 'POST',
    headers: { 'x-api-key': host.key, 'content-type': 'application/json' } }
  if (mix === 'hot') {
    target.body = hot
  } else {
    const next = freshProfileBodies(freshSeed++)
    target.bodyFile = join(dir, `fresh-${freshSeed}.txt`)
    await writeFile(target.bodyFile, Array.from({ length: 200_000 }, next).join('\n') + '\n')
  }
  return await measured(host, async () => {
    const r = await closedLoop(target, { connections: 64, seconds: SECONDS, warmupSeconds: 1 })
    return { count: r.requests, errors: r.errors, seconds: r.requests / r.rps }
  })
}

/** `CLIENTS` clients in a loop for SECONDS: the count of answers (and of failures). */
async function loop (call: () => Promise<{ status: number }>): Promise<{ count: number, errors: number,
  seconds: number }> {
  const t0 = performance.now()
  const until = t0 + SECONDS * 1000
  let count = 0
  let errors = 0
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < until) {
      if ((await call()).status === 200) count++
      else errors++
    }
  }))
  return { count, errors, seconds: (performance.now() - t0) / 1000 }
}

const ROWS = {
  hot: { what: 'cached profile, one hot body (req/s)', run: (h: Host) => profiles(h, 'hot'), per: 1 },
  fresh: { what: 'cached profile, never-repeating bodies (req/s)', run: (h: Host) => profiles(h, 'fresh'), per: 1 },
  samples: {
    what: `samples, ${SAMPLE_POINTS / 1000}k points Arrow (points/s)`, per: SAMPLE_POINTS,
    run: (h: Host) => measured(h, () => loop(() => post(h, SAMPLES_PATH, samplesBody, ARROW)))
  },
  flights: {
    what: 'single flights, Warsaw to 30 km and back (flights/s)', per: 1,
    run: (h: Host) => measured(h, () => loop(() => post(h, '/v1/atmosphere/trajectory', JSON.stringify(FLIGHT))))
  }
} as const
type RowName = keyof typeof ROWS
const rowNames = (Object.keys(ROWS) as RowName[]).filter((r) => ONLY === null || ONLY.has(r))

interface Shared { rate: number, cpuUs: number, primaryUs: number, balance: number, errors: number }

/** Hot profiles against a two-process host: rate, CPU a request (host, primary) and the processes' balance. */
async function sharing (host: Host, fresh: boolean): Promise<Shared> {
  const target: ClosedTarget = { url: `${host.url}/v1/atmosphere/profile`, method: 'POST', body: hot,
    headers: { 'x-api-key': host.key, 'content-type': 'application/json', ...(fresh ? { connection: 'close' } : {}) } }
  const pids = await processesOf(host.child.pid!)
  // the primary's own CPU (treeCpuUs would count its processes too), then each process's
  const read = async (): Promise<number[]> => await Promise.all([ownCpuUs(host.child.pid!), ...pids.map(treeCpuUs)])
  const before = await read()
  const r = await closedLoop(target, { connections: fresh ? 16 : 64, seconds: SECONDS, warmupSeconds: 1 })
  const used = (await read()).map((us, k) => us - before[k])
  const [primary, ...processes] = used
  const total = used.reduce((a, b) => a + b, 0)
  return { rate: r.rps, cpuUs: total / r.requests, primaryUs: primary / r.requests,
    balance: Math.min(...processes) / processes.reduce((a, b) => a + b, 0), errors: r.errors }
}

/** The scheduling table: each policy's host, alternated, for kept-alive and new connections. */
async function policies (): Promise<Record<string, unknown>> {
  const byPolicy = [await startHost(2, 'none'), await startHost(2, 'rr')]
  try {
    for (const h of byPolicy) await warm(h)
    const rows: string[][] = []
    const out: Record<string, unknown> = {}
    for (const fresh of [false, true]) {
      const runs: Shared[][] = [[], []]
      for (let p = 0; p < PAIRS; p++) {
        for (const k of p % 2 === 0 ? [0, 1] : [1, 0]) runs[k].push(await sharing(byPolicy[k], fresh))
      }
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
      for (const [k, name] of ['each process accepts (SCHED_NONE)', 'round-robin by the primary'].entries()) {
        const m = (f: (x: Shared) => number): number => median(runs[k].map(f))
        const connections = fresh ? 'a new connection a request (-c16)' : 'kept-alive connections (-c64)'
        rows.push([connections, name, int(m((x) => x.rate)),
          ms(m((x) => x.cpuUs), 1), ms(m((x) => x.primaryUs), 1), `${int(m((x) => x.balance) * 100)} %`,
          String(runs[k].reduce((n, x) => n + x.errors, 0))])
      }
      out[fresh ? 'fresh' : 'kept'] = { none: runs[0], rr: runs[1] }
    }
    console.log('\n' + table(['hot profiles, 2 processes', 'who hands out connections', 'req/s',
      'host CPU µs a request', 'primary CPU µs a request', 'balance (50 % = even)', 'failed'], rows))
    return out
  } finally {
    for (const h of byPolicy) await stop(h.child, 15_000)
  }
}

const hosts: Host[] = []
try {
  await waitFor('redis-server', async () => await pingRedis(redisPort))
  if (rowNames.length > 0) for (const n of [1, 2]) hosts.push(await startHost(n))
  for (const h of hosts) await warm(h)
  const runs: Record<string, Measured[][]> = {}
  for (const row of rowNames) {
    runs[row] = [[], []]
    for (let p = 0; p < PAIRS; p++) {
      // alternated: a drift of the machine over the run falls on both sides alike
      for (const k of p % 2 === 0 ? [0, 1] : [1, 0]) runs[row][k].push(await ROWS[row].run(hosts[k]))
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rows: string[][] = []
  const result: Record<string, unknown> = { machine: machine(), seconds: SECONDS, pairs: PAIRS, rows: {} }
  for (const row of rowNames) {
    const [one, two] = runs[row].map((ms) => ({
      rate: median(ms.map((m) => m.rate * ROWS[row].per)),
      cpuUs: median(ms.map((m) => m.cpuUs / m.count)),
      redisUs: median(ms.map((m) => m.redisCpuUs / m.count)),
      errors: ms.reduce((n, m) => n + m.errors, 0)
    }))
    const ratios = runs[row][0].map((m, k) => runs[row][1][k].rate / m.rate)
    ;(result.rows as Record<string, unknown>)[row] = { one, two, ratios }
    rows.push([ROWS[row].what, int(one.rate), int(two.rate), `${ms(two.rate / one.rate)}× (${ratios.map((r) =>
      ms(r)).join(', ')})`, `${ms(one.cpuUs / 1000, 3)} / ${ms(two.cpuUs / 1000, 3)}`,
    `${ms(one.redisUs, 1)} / ${ms(two.redisUs, 1)}`, String(one.errors + two.errors)])
  }
  if (rows.length > 0) {
    console.log(table(['', '1 process', '2 processes', '2 ÷ 1 (each pair)', 'host CPU ms a request (1 / 2)',
      'Redis CPU µs a request (1 / 2)', 'failed'], rows))
  }
  console.log(`\n${SECONDS} s a run, ${PAIRS} alternated pairs, median shown; one Redis; ALOFT_WORKERS ` +
    'default (the cores ÷ processes); wrk -t1 -c64 for profiles, ' + `${CLIENTS} clients for samples and flights`)
  for (const h of hosts) await stop(h.child, 15_000)
  hosts.length = 0
  if (ONLY === null || ONLY.has('policies')) result.policies = await policies()
  console.log(`written ${writeResult('cores', result)}`)
} finally {
  for (const h of hosts) await stop(h.child, 15_000)
  await stop(redis)
  await rm(dir, { recursive: true, force: true })
}
