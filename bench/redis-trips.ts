// bench/redis-trips: what each hot path asks of Redis per request, on cached data. One aloft
// process (bench/children/server.ts, the Redis store, public Tawhiri mode on) against a redis-server of its
// own on a free port; for each path, after a warm-up, `--requests` requests one at a time and then
// `--concurrency` at once, each window twice: once under MONITOR (the commands aloft sent, each a
// request on the wire; a script's own commands are Redis's work, not round trips) and once without
// it (the commandstats, aloft's CPU per request, the Redis main thread's CPU per request, and the
// rate, which MONITOR slows). Also: sixteen at once for the cheap paths, four for those that cost
// more than one token (100 requests each), and what Redis is asked while no request comes.
//   npm run build && node dist/bench/redis-trips.js [--requests 1000] [--concurrency 16]
// Writes bench/results/redis-trips.json.
import { Redis } from 'ioredis'
import { freshProfileBodies, profileBody } from './lib/bodies.js'
import {
  int, ms, numberArg, SAMPLE, serverCpuUs, startServer, table, writeResult, type ServerInfo
} from './lib/index.js'
import { callsBetween, ownRedis, perRequest, readRedis, SentCommands, total } from './lib/redis-counts.js'
import { jsonBody, randomPoints } from './lib/sample-points.js'

const REQUESTS = numberArg('requests', 1000)
const CONCURRENCY = numberArg('concurrency', 16)
const IDLE_SECONDS = 3

const FLIGHT = JSON.stringify({ launch_latitude: 52.2297, launch_longitude: 21.0122,
  launch_datetime: '2020-08-04T12:00:00Z', ascent_rate: 5, burst_altitude: 30000, descent_rate: 5 })
const TAWHIRI = new URLSearchParams({ profile: 'standard_profile', launch_latitude: '52.2297',
  launch_longitude: '21.0122', launch_altitude: '0', launch_datetime: '2020-08-04T12:00:00Z', ascent_rate: '5',
  burst_altitude: '30000', descent_rate: '5' }).toString()
const SAMPLES = jsonBody(randomPoints(10, 3))
// requests costing more than one token (docs/DESIGN.md: per 10 000 points, per started 10 000 steps)
const SAMPLES_BIG = jsonBody(randomPoints(20_000, 5))
const ENSEMBLE = JSON.stringify({ ...JSON.parse(FLIGHT) as object, ensemble: { members: 100, ascent_rate_sd: 0.5,
  burst_altitude_sd: 2000, descent_rate_sd: 0.5, seed: 1 } })

/**
 * `share`: this path's share of `--requests`; `clients`: at most this many at once (the costly ones
 * take 10–50 ms of CPU each: 16 of them on two cores hold the event loop past the store's 1 s timeout).
 */
interface Path { name: string, send: (s: ServerInfo) => Promise<Response>, share?: number, clients?: number }

function post (route: string, body: () => string): (s: ServerInfo) => Promise<Response> {
  return async (s) => await fetch(`${s.aloftUrl}${route}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': s.key }, body: body()
  })
}

const fresh = freshProfileBodies(11)
const PATHS: Path[] = [
  { name: 'profile, same body', send: post('/v1/atmosphere/profile', () => profileBody()) },
  { name: 'profile, never-repeating bodies', send: post('/v1/atmosphere/profile', fresh) },
  { name: 'samples, JSON, 10 points', send: post('/v1/atmosphere/samples', () => SAMPLES) },
  { name: 'trajectory, one flight', send: post('/v1/atmosphere/trajectory', () => FLIGHT) },
  { name: 'samples, JSON, 20 000 points (2 tokens)', send: post('/v1/atmosphere/samples', () => SAMPLES_BIG),
    share: 0.1, clients: 4 },
  { name: 'trajectory, 100-member ensemble (2+ tokens)', send: post('/v1/atmosphere/trajectory', () => ENSEMBLE),
    share: 0.1, clients: 4 },
  { name: 'Tawhiri, X-API-Key', send: async (s) => await fetch(`${s.aloftUrl}/api/v1/?${TAWHIRI}`,
    { headers: { 'x-api-key': s.key } }) },
  { name: 'Tawhiri, /k/<key>/', send: async (s) => await fetch(`${s.aloftUrl}/k/${s.key}/api/v1/?${TAWHIRI}`) },
  { name: 'Tawhiri, public (no key)', send: async (s) => await fetch(`${s.aloftUrl}/api/v1/?${TAWHIRI}`) }
]

async function once (path: Path, server: ServerInfo): Promise<void> {
  const res = await path.send(server)
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${path.name}: ${res.status} ${text.slice(0, 300)}`)
}

/** `requests` requests, `clients` at a time; seconds taken. */
async function run (path: Path, server: ServerInfo, requests: number, clients: number): Promise<number> {
  let left = requests
  const t0 = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (left > 0) {
      left--
      await once(path, server)
    }
  }))
  return (performance.now() - t0) / 1000
}

async function connections (redis: Redis): Promise<number> {
  return Number(/connected_clients:(\d+)/.exec(await redis.info('clients'))?.[1])
}

/** The commands sent for the requests: without the limiter's timer, which runs whether or not any come. */
function requestsOwn (sent: Map<string, number>): Map<string, number> {
  return new Map([...sent].filter(([name]) => !name.endsWith('(limiter)')))
}

interface Row {
  path: string, mode: string, requests: number, per_second: number, aloft_cpu_us_per_request: number,
  redis_cpu_us_per_request: number, sent_per_read: number,
  commands_per_request: number, commands: Record<string, number>, sent_per_request: number, sent: Record<string, number>
}

const redis = await ownRedis()
const reader = new Redis(redis.url)
const clientsBefore = await connections(reader)
const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_WORKERS: '2', REDIS_URL: redis.url,
  ALOFT_REDIS_PREFIX: 'trips:', ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '1000000',
  ALOFT_PUBLIC_RATE_BURST: '1000000' })
const monitor = await SentCommands.open(redis.url)
const rows: Row[] = []
try {
  for (const path of PATHS) await run(path, server.info, 20, 4) // data fetched, cached, code warm
  // connections one aloft process holds to Redis (the monitor's two opened before are ours)
  const held = await connections(reader) - clientsBefore - 2
  // what Redis is asked with no request at all (timers: the upstream limiter's, if any)
  let before = await readRedis(reader)
  monitor.start()
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000))
  const idleSent = await monitor.stop()
  const idle = callsBetween(before, await readRedis(reader))
  for (const path of PATHS) {
    const requests = Math.round(REQUESTS * (path.share ?? 1))
    const most = Math.min(CONCURRENCY, path.clients ?? CONCURRENCY)
    for (const [mode, clients] of [['sequential', 1], [`${most} at once`, most]] as const) {
      monitor.start()
      await run(path, server.info, requests, clients)
      const sent = await monitor.stop()
      before = await readRedis(reader)
      const cpu0 = await serverCpuUs(server)
      const seconds = await run(path, server.info, requests, clients)
      const aloftCpuUs = (await serverCpuUs(server) - cpu0) / requests
      const after = await readRedis(reader)
      const calls = callsBetween(before, after)
      rows.push({ path: path.name, mode, requests, per_second: requests / seconds, aloft_cpu_us_per_request: aloftCpuUs,
        redis_cpu_us_per_request: (after.cpuUs - before.cpuUs) / requests,
        // the reader's own INFO calls (3 per reading) are reads too: left out
        sent_per_read: calls.get('evalsha') === undefined ? NaN
          : (calls.get('evalsha') as number) / (after.reads - before.reads - 3),
        commands_per_request: total(calls) / requests, commands: Object.fromEntries(calls),
        sent_per_request: total(requestsOwn(sent)) / requests, sent: Object.fromEntries(sent) })
      process.stderr.write(`${path.name}, ${mode}: ${perRequest(sent, requests)}\n`)
    }
  }
  console.log(`bench/redis-trips: ${REQUESTS} requests per row (the costly ones ${REQUESTS / 10}), cached data, ` +
    'one aloft process, its own Redis\n')
  console.log(table(['path', 'clients', 'requests', 'req/s', 'aloft CPU µs/req', 'sent/req', 'sent by command',
    'run in Redis/req', 'EVALSHA per read'], rows.map((r) => [r.path, r.mode, String(r.requests), int(r.per_second),
    int(r.aloft_cpu_us_per_request), ms(r.sent_per_request, 3), perRequest(new Map(Object.entries(r.sent)), r.requests),
    ms(r.commands_per_request, 3), ms(r.sent_per_read, 2)])))
  console.log(`\nidle, ${IDLE_SECONDS} s: sent ${perRequest(idleSent, IDLE_SECONDS)} per second; ` +
    `run ${perRequest(idle, IDLE_SECONDS)} per second`)
  console.log(`connections the aloft process holds to Redis: ${held}`)
  console.log('sent: commands aloft sent (MONITOR), each awaited in turn on its request\'s path (a timer\'s marked ' +
    '"limiter"); run in Redis: commandstats (a script and the commands it runs). The Redis main thread\'s CPU per ' +
    'request is in the JSON: at these rates it is mostly wake-ups; bench/redis-capacity measures it at saturation.')
  const path = writeResult('redis-trips', { requests: REQUESTS, concurrency: CONCURRENCY, connections: held, rows,
    idle: { seconds: IDLE_SECONDS, sent: Object.fromEntries(idleSent), run: Object.fromEntries(idle) } })
  console.log(`\nwrote ${path}`)
} finally {
  monitor.close()
  reader.disconnect()
  await server.stop()
  await redis.close()
}
