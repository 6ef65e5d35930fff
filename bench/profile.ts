// bench/profile: cached profile throughput and latency against the bare polka route of the same
// server process, side by side in one run; then the profile's p99 at half its maximum (open
// loop, fixed rate). Once per setting that matters to a cached profile:
//   - ALOFT_INTERPOLATE=main (the default) and =worker, the latter with 1 and 2 worker threads;
//   - the in-memory store and Redis (one admission script per request), when a Redis answers
//     (REDIS_URL, as `npm run bench` provides; a run without one says so and skips the row).
//   npx tsc -p tsconfig.json && node dist/bench/profile.js [--seconds 5] [--connections 32] [--points 256]
// The requests are `--points` distinct bodies (points, 1–8 heights each) over the sample's area,
// sent in turn, after each has been answered once. The server (bench/server.js) serves data/sample
// as mirror:<dir>; load comes from wrk (closed loop) when installed and bench/loadgen (open loop),
// in other processes. Writes bench/results/profile.json.
import { closedLoop, WRK, type ClosedRun } from './wrk.js'
import {
  int, loadgen, ms, numberArg, postProfile, profileBodies, SAMPLE, startServer, table, writeResult
} from './lib.js'
import type { LoadResult } from './loadgen.js'

const seconds = numberArg('seconds', 5)
const connections = numberArg('connections', 32)
const points = numberArg('points', 256)
const warmupSeconds = 1
const REDIS_PREFIX = 'aloft-bench:'

interface Mode { interpolate: 'main' | 'worker', workers: number, store: 'memory' | 'redis' }

interface ModeResult extends Mode {
  bare: ClosedRun
  profile: ClosedRun
  ratio: number
  halfRate: number
  open: LoadResult
}

const redisUrl = process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '' ? process.env.REDIS_URL : null
const MODES: Mode[] = [
  { interpolate: 'main', workers: 2, store: 'memory' },
  { interpolate: 'worker', workers: 2, store: 'memory' },
  { interpolate: 'worker', workers: 1, store: 'memory' },
  ...(redisUrl !== null ? [{ interpolate: 'main', workers: 2, store: 'redis' } satisfies Mode] : [])
]

async function measure (mode: Mode, bodies: string[]): Promise<ModeResult> {
  const server = await startServer({
    ALOFT_SOURCE: `mirror:${SAMPLE}`,
    ALOFT_INTERPOLATE: mode.interpolate,
    ALOFT_WORKERS: String(mode.workers),
    ...(mode.store === 'redis' ? { REDIS_URL: redisUrl as string, ALOFT_REDIS_PREFIX: REDIS_PREFIX } : {})
  })
  try {
    for (const body of bodies) { // decodes the unit's blocks: every later answer is cached
      const first = await postProfile(server.info, body)
      if (first.status !== 200) {
        throw new Error(`warm-up profile answered ${first.status}: ${JSON.stringify(first.json)}`)
      }
    }
    const headers = { 'content-type': 'application/json', 'x-api-key': server.info.key }
    const url = `${server.info.aloftUrl}/v1/atmosphere/profile`
    const bare = await closedLoop(
      { url: `${server.info.bareUrl}/`, method: 'GET' },
      { connections, seconds, warmupSeconds }
    )
    const profile = await closedLoop({ url, method: 'POST', headers, bodies }, { connections, seconds, warmupSeconds })
    const halfRate = Math.max(1, Math.round(profile.rps / 2))
    const open = await loadgen({
      mode: 'open', rate: halfRate, connections: 64, seconds, warmupSeconds,
      requests: bodies.map((body) => ({ kind: 'profile', method: 'POST' as const, url, headers, body }))
    })
    return { ...mode, bare, profile, ratio: profile.rps / bare.rps, halfRate, open }
  } finally {
    await server.stop()
  }
}

/** The bare app answering one profile's response bytes (computed once): what the payload alone costs. */
async function payloadOnly (body: string): Promise<ClosedRun> {
  const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, BENCH_SIZED_BODY: body })
  try {
    return await closedLoop(
      { url: `${server.info.bareUrl}/sized`, method: 'GET' },
      { connections, seconds, warmupSeconds }
    )
  } finally {
    await server.stop()
  }
}

const bodies = profileBodies(points)
const results: ModeResult[] = []
for (const mode of MODES) results.push(await measure(mode, bodies))
const sized = await payloadOnly(bodies[0])

const label = (m: Mode): string => `${m.interpolate} ${m.workers} ${m.store}`
const openErrors = (r: LoadResult): number => Object.entries(r.outcomes)
  .filter(([k]) => !k.endsWith(' 200'))
  .reduce((n, [, v]) => n + v, 0)
const closedTool = WRK !== null ? 'wrk' : 'bench/loadgen'
console.log(`profile: cached profiles (${points} distinct bodies in turn) vs the bare polka route, ` +
  `same server process (${seconds} s each after ${warmupSeconds} s warm-up, ${connections} connections, ` +
  `${closedTool} closed loop)`)
console.log(table(
  [
    'interpolate workers store', 'bare req/s', 'profile req/s', 'ratio', 'bare p50 ms', 'bare p99 ms', 'profile p50 ms',
    'profile p99 ms', 'errors'
  ],
  results.map((m) => [
    label(m),
    int(m.bare.rps),
    int(m.profile.rps),
    m.ratio.toFixed(2),
    ms(m.bare.p50Ms),
    ms(m.bare.p99Ms),
    ms(m.profile.p50Ms),
    ms(m.profile.p99Ms),
    String(m.bare.errors + m.profile.errors)
  ])
))
if (redisUrl === null) console.log('(no REDIS_URL: the Redis store was not measured; `npm run bench` provides one)')
console.log(`\nprofile at half its maximum (open loop, bench/loadgen, latency from the scheduled start, ${seconds} s)`)
console.log(table(
  [
    'interpolate workers store', 'rate req/s', 'achieved req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-200',
    'scheduler lag ms'
  ],
  results.map((m) => [
    label(m),
    String(m.halfRate),
    int(m.open.rps),
    ms(m.open.latencyMs.p50),
    ms(m.open.latencyMs.p99),
    ms(m.open.latencyMs.max),
    String(openErrors(m.open)),
    ms(m.open.schedulerLagMs)
  ])
))
console.log(`\nthe bare polka app answering one profile's response bytes (computed once): ${int(sized.rps)} req/s, ` +
  `p99 ${ms(sized.p99Ms)} ms — the payload's own cost`)
const path = writeResult('profile', {
  seconds,
  warmup_seconds: warmupSeconds,
  connections,
  points,
  closed_loop_tool: WRK !== null ? 'wrk' : 'loadgen',
  modes: results,
  payload_only: sized
})
console.log(`\n→ ${path}`)
