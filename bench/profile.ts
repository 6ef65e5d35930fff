// bench/profile: cached profile throughput and latency against a bare polka route of the same
// server process that reads and parses the same bodies, side by side in one run, for three mixes:
//   hot       one body, repeated;
//   distinct  `--points` distinct bodies (points, 1–8 heights each) sent in turn;
//   fresh     bodies that never repeat: a random point, minute (12:00–24:00) and 1–8 heights inside
//             the cached 2020-08-04 12Z run, a new one per request (bench/lib/bodies.ts).
// Each mix: the bare route, the profile route (closed loop, wrk when installed; req/s and the server's
// CPU time per request, which other processes on the machine disturb less), then the profile's
// latency at half that maximum (open loop, bench/loadgen: its C client when a C compiler is here),
// with the server's event-loop delay and collector pauses over it, and the bare route at the same
// rate (the tail the machine and the generator give alone). Once with the in-memory store and once
// with Redis when one answers (REDIS_URL, as `npm run bench` provides). Full float64 output.
//   npx tsc -p tsconfig.json && node dist/bench/profile.js [--seconds 5] [--connections 32] [--points 256]
//   [--pairs 1] (bare and profile measured that many times in alternating order; the median pair shown)
//   … --breakdown [--breakdown-seconds 8]: also the CPU of a fresh-body request, room by room, from a
//   V8 CPU profile of the server over the load window (bench/lib/breakdown.ts) → bench/results/;
//   … --breakdown-only: the breakdown alone; --breakdown-mix hot|distinct|fresh (default fresh);
//   --keep-profile DIR: the raw .cpuprofile files there too (open them in Chrome DevTools or read them
//   with bench/top-frames); --only memory,fresh (any of memory, redis, hot, distinct, fresh): a subset,
//   for quick comparisons; --client c|raw: the open loop's generator; --open-warmup S (default 1):
//   seconds at the open loop's rate before measuring; --node-args "…": Node options for the server
//   (e.g. --v8-pool-size=1, which docs/PERFORMANCE.md recommends on two cores).
// The server is bench/children/server.js over data/sample (mirror). Writes bench/results/profile.json.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { closedLoop, WRK, type ClosedRun, type ClosedTarget } from './lib/wrk.js'
import {
  int, loadgen, ms, numberArg, postProfile, profileBodies, SAMPLE, serverCpuUs, startServer, table, writeResult,
  type ServerChild
} from './lib/index.js'
import { freshProfileBodies } from './lib/bodies.js'
import { breakdown, type BreakdownRow, type CpuProfile } from './lib/breakdown.js'
import { hasCLoadgen, type LoadRequest, type LoadResult } from './lib/load-run.js'

const seconds = numberArg('seconds', 5)
const connections = numberArg('connections', 32)
const points = numberArg('points', 256)
const breakdownSeconds = numberArg('breakdown-seconds', 8)
const pairs = numberArg('pairs', 1)
const breakdownOnly = process.argv.includes('--breakdown-only')
const mixAt = process.argv.indexOf('--breakdown-mix')
const breakdownMix = (mixAt > 0 ? process.argv[mixAt + 1] : 'fresh') as MixName
if (!['hot', 'distinct', 'fresh'].includes(breakdownMix)) throw new Error('--breakdown-mix: hot, distinct or fresh')
const withBreakdown = breakdownOnly || process.argv.includes('--breakdown')
const keepAt = process.argv.indexOf('--keep-profile')
const keepDir = keepAt > 0 ? process.argv[keepAt + 1] : undefined
const warmupSeconds = 1
/**
 * The open loop's own warm-up at its rate (`--open-warmup`, s), after the server has run flat out
 * (5 s read no better than 1 s on 2026-11-25).
 */
const openWarmupSeconds = numberArg('open-warmup', 1)
/**
 * The open loop's generator: `--client c` (bench/children/loadgen.c, the default when a C compiler is here) or
 * `--client raw` (Node's raw client, whose own pauses reach several milliseconds on two cores).
 */
const clientAt = process.argv.indexOf('--client')
const openClient = clientAt > 0 ? process.argv[clientAt + 1] as 'c' | 'raw' : hasCLoadgen() ? 'c' : 'raw'
if (!['c', 'raw'].includes(openClient)) throw new Error('--client: c or raw')
const REDIS_PREFIX = 'aloft-bench:'
/** Bodies per fresh file: more than any closed-loop window here sends, so none repeats. */
const FRESH_PER_FILE = 200_000

type MixName = 'hot' | 'distinct' | 'fresh'
type Store = 'memory' | 'redis'

/** A closed-loop run and the server's CPU time per request over it (user + system, every thread). */
type Measured = ClosedRun & { cpuUsPerRequest: number }

/** How late the server's event loop ran over a window (ms). */
interface LoopDelay { p50_ms: number, p99_ms: number, max_ms: number,
  /** The main thread's collector pauses over the window. */
  gc: { count: number, total_ms: number, max_ms: number, over_2ms: number } }

interface MixResult { mix: MixName, bare: Measured, profile: Measured, ratio: number, cpuRatio: number,
  /** Every pair's ratios (`--pairs`); bare and profile are the median pair's. */
  ratios: number[], cpuRatios: number[], halfRate: number, open: LoadResult,
  /** The bare route's open loop at the same rate: the tail the machine and the generator give on their own. */
  openBare: LoadResult, serverLoop: LoopDelay }

const redisUrl = process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '' ? process.env.REDIS_URL : null
/** `--only memory|redis|hot|distinct|fresh[,…]`: a subset, for quick comparisons (default: all). */
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt > 0 ? new Set(process.argv[onlyAt + 1].split(',')) : null
const picked = <T extends string>(all: readonly T[]): T[] =>
  only === null || !all.some((x) => only.has(x)) ? [...all] : all.filter((x) => only.has(x))
const STORES: Store[] = picked(['memory', ...(redisUrl !== null ? ['redis' as const] : [])])
const MIXES = picked(['hot', 'distinct', 'fresh'] as const)

const distinct = profileBodies(points)
const hot = distinct.slice(0, 1)
const dir = await mkdtemp(join(tmpdir(), 'aloft-bench-profile-'))
let seed = 1000
/** A file of never-seen bodies, one per line; a new seed each time, so no two runs share a body. */
async function freshFile (): Promise<string> {
  const next = freshProfileBodies(seed++)
  const path = join(dir, `fresh-${seed}.txt`)
  await writeFile(path, Array.from({ length: FRESH_PER_FILE }, next).join('\n') + '\n')
  return path
}

/** `--node-args "…"`: Node options for the server process (e.g. `--single-threaded-gc`), for comparisons. */
const nodeArgsAt = process.argv.indexOf('--node-args')
const serverNodeArgs = nodeArgsAt > 0 ? process.argv[nodeArgsAt + 1].split(' ').filter((a) => a !== '') : []

async function startProfileServer (store: Store, nodeArgs: string[] = []): Promise<ServerChild> {
  nodeArgs = [...serverNodeArgs, ...nodeArgs]
  const server = await startServer({
    ALOFT_SOURCE: `mirror:${SAMPLE}`,
    ALOFT_INTERPOLATE: 'main',
    ALOFT_WORKERS: '2',
    ...(store === 'redis' ? { REDIS_URL: redisUrl as string, ALOFT_REDIS_PREFIX: REDIS_PREFIX } : {})
  }, nodeArgs)
  // decodes the three units every mix reads: later answers are all cached
  const warm = [...distinct, ...Array.from({ length: 64 }, freshProfileBodies(1))]
  for (const body of warm) {
    const first = await postProfile(server.info, body)
    if (first.status !== 200) throw new Error(`warm-up profile answered ${first.status}: ${JSON.stringify(first.json)}`)
  }
  return server
}

async function mixBodies (mix: MixName): Promise<Pick<ClosedTarget, 'bodies' | 'bodyFile'>> {
  return mix === 'fresh' ? { bodyFile: await freshFile() } : { bodies: mix === 'hot' ? hot : distinct }
}

async function loopDelay (server: ServerChild): Promise<LoopDelay> {
  return await (await fetch(`${server.info.bareUrl}/loop-delay`)).json() as LoopDelay
}

/** Closed loop over a mix (each mix warms up first; the fresh mix on a file of its own). */
async function closed (
  server: ServerChild, target: Omit<ClosedTarget, 'bodies' | 'bodyFile'>, mix: MixName
): Promise<Measured> {
  const options = { connections, seconds: warmupSeconds, warmupSeconds: 0 }
  const bodies = async (): Promise<Pick<ClosedTarget, 'bodies' | 'bodyFile'>> => await mixBodies(mix)
  await closedLoop({ ...target, ...await bodies() }, options)
  const measured = { ...target, ...await bodies() }
  const before = await serverCpuUs(server)
  const run = await closedLoop(measured, { ...options, seconds })
  return { ...run, cpuUsPerRequest: (await serverCpuUs(server) - before) / Math.max(1, run.requests) }
}

async function measureMix (server: ServerChild, mix: MixName): Promise<MixResult> {
  const headers = { 'content-type': 'application/json', 'x-api-key': server.info.key }
  const url = `${server.info.aloftUrl}/v1/atmosphere/profile`
  const bareTarget = { url: `${server.info.bareUrl}/parse`, method: 'POST' as const,
    headers: { 'content-type': 'application/json' } }
  // `--pairs N`: bare and profile measured N times, in alternating order, and the pair with the
  // median ratio reported (with the range): on a shared machine one pair can land in a noisy second
  const runs: Array<{ bare: Measured, profile: Measured }> = []
  for (let k = 0; k < pairs; k++) {
    if (k % 2 === 0) {
      const bare = await closed(server, bareTarget, mix)
      runs.push({ bare, profile: await closed(server, { url, method: 'POST', headers }, mix) })
    } else {
      const profile = await closed(server, { url, method: 'POST', headers }, mix)
      runs.push({ bare: await closed(server, bareTarget, mix), profile })
    }
  }
  const ratios = runs.map((r) => r.profile.rps / r.bare.rps)
  const cpuRatios = runs.map((r) => r.bare.cpuUsPerRequest / r.profile.cpuUsPerRequest)
  const { bare, profile } = runs[ratios.indexOf([...ratios].sort((a, b) => a - b)[Math.floor((pairs - 1) / 2)])]
  const halfRate = Math.max(1, Math.round(profile.rps / 2))
  const requests: LoadRequest[] = mix === 'fresh'
    ? [{ kind: 'profile', method: 'POST', url, headers, freshProfileSeed: seed++ }]
    : (mix === 'hot' ? hot : distinct).map((body) => ({ kind: 'profile', method: 'POST' as const, url, headers, body }))
  await loopDelay(server) // forgets what came before
  const open = await loadgen({ mode: 'open', rate: halfRate, connections: 64, seconds, warmupSeconds: openWarmupSeconds,
    requests, client: openClient })
  const serverLoop = await loopDelay(server)
  // the bare route at the same rate and bodies: what the machine and the generator alone put in the tail
  const openBare = await loadgen({ mode: 'open', rate: halfRate, connections: 64, seconds,
    warmupSeconds: openWarmupSeconds, requests: requests.map((r) => ({ ...r, url: bareTarget.url })),
    client: openClient })
  return {
    mix, bare, profile, ratio: profile.rps / bare.rps, cpuRatio: bare.cpuUsPerRequest / profile.cpuUsPerRequest,
    ratios, cpuRatios, halfRate, open, openBare, serverLoop
  }
}

/** CPU per request of a mix (default fresh), room by room, over a closed-loop window: profile route, then bare. */
async function measureBreakdown (store: Store): Promise<Breakdown> {
  const server = await startProfileServer(store)
  try {
    const profileTarget = { url: `${server.info.aloftUrl}/v1/atmosphere/profile`, method: 'POST' as const,
      headers: { 'content-type': 'application/json', 'x-api-key': server.info.key } }
    const bareTarget = { url: `${server.info.bareUrl}/parse`, method: 'POST' as const,
      headers: { 'content-type': 'application/json' } }
    const profiled = async (target: ClosedTarget, name: string): Promise<Omit<Breakdown, 'store' | 'bare'>> => {
      await closedLoop({ ...target, ...await mixBodies(breakdownMix) }, { connections, seconds: 1, warmupSeconds: 0 })
      await fetch(`${server.info.bareUrl}/cpu-profile/start`, { method: 'POST' })
      const run = await closedLoop({ ...target, ...await mixBodies(breakdownMix) },
        { connections, seconds: breakdownSeconds, warmupSeconds: 0 })
      const profile = await (await fetch(`${server.info.bareUrl}/cpu-profile/stop`, { method: 'POST' })).json()
      if (keepDir !== undefined) {
        const kept = join(keepDir, `${name}-${breakdownMix}-${store}.cpuprofile`)
        await mkdir(keepDir, { recursive: true })
        await writeFile(kept, JSON.stringify(profile))
        console.log(`→ ${kept}`)
      }
      return { requests: run.requests, rows: breakdown(profile as CpuProfile, run.requests) }
    }
    const profile = await profiled(profileTarget, 'profile')
    const bare = await profiled(bareTarget, 'bare')
    return { store, ...profile, bare }
  } finally {
    await server.stop()
  }
}

interface Breakdown {
  store: Store
  requests: number
  rows: BreakdownRow[]
  /** The bare route over the same bodies: the floor each room is judged against. */
  bare: { requests: number, rows: BreakdownRow[] }
}

const results: Array<{ store: Store, mixes: MixResult[] }> = []
const breakdowns: Breakdown[] = []
try {
  for (const store of breakdownOnly ? [] : STORES) {
    const server = await startProfileServer(store)
    try {
      const mixes: MixResult[] = []
      for (const mix of MIXES) mixes.push(await measureMix(server, mix))
      results.push({ store, mixes })
    } finally {
      await server.stop()
    }
  }
  if (withBreakdown) for (const store of STORES) breakdowns.push(await measureBreakdown(store))
} finally {
  await rm(dir, { recursive: true, force: true })
}

const range = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`
const openErrors = (r: LoadResult): number => Object.entries(r.outcomes)
  .filter(([k]) => !k.endsWith(' 200'))
  .reduce((n, [, v]) => n + v, 0)
if (!breakdownOnly) {
  console.log(`profile: cached profiles vs a bare polka route reading and parsing the same bodies, same server ` +
    `process (${seconds} s each after ${warmupSeconds} s warm-up, ${connections} connections, ` +
    `${WRK !== null ? 'wrk' : 'bench/loadgen'} closed loop; hot = 1 body, distinct = ${points} bodies in turn, ` +
    'fresh = never the same body twice; CPU µs: the server process\'s user + system time per request' +
    (pairs > 1 ? `; ${pairs} pairs of bare and profile in alternating order, the median pair shown, \`pairs\`: ` +
      'the range of the ratio over them)' : ')'))
  console.log(table(
    ['store', 'mix', 'bare req/s', 'profile req/s', 'ratio', ...(pairs > 1 ? ['pairs'] : []), 'goal', 'bare CPU µs',
      'profile CPU µs', 'CPU ratio', ...(pairs > 1 ? ['pairs'] : []), 'profile p50 ms', 'profile p99 ms', 'errors'],
    results.flatMap(({ store, mixes }) => mixes.map((m) => [
      store, m.mix, int(m.bare.rps), int(m.profile.rps), m.ratio.toFixed(2), ...(pairs > 1 ? [range(m.ratios)] : []),
      m.mix === 'hot' ? '≥ 0.50' : m.mix === 'fresh' ? '≥ 0.40' : '',
      m.bare.cpuUsPerRequest.toFixed(0), m.profile.cpuUsPerRequest.toFixed(0), m.cpuRatio.toFixed(2),
      ...(pairs > 1 ? [range(m.cpuRatios)] : []),
      ms(m.profile.p50Ms), ms(m.profile.p99Ms), String(m.bare.errors + m.profile.errors)
    ]))
  ))
  if (redisUrl === null) console.log('(no REDIS_URL: the Redis store was not measured; `npm run bench` provides one)')
  console.log(`\nprofile at half its maximum (open loop, bench/loadgen with its ${openClient === 'c' ? 'C' : 'raw'} ` +
    `client, latency from the scheduled start, ${seconds} s after ${openWarmupSeconds} s at that rate; ` +
    'goal p99 < 5 ms)')
  console.log(table(
    ['store', 'mix', 'rate req/s', 'achieved req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-200', 'scheduler lag ms',
      'server loop delay p99 / max ms', 'GC pauses: count / > 2 ms / max ms', 'bare route p50 / p99 / max ms'],
    results.flatMap(({ store, mixes }) => mixes.map((m) => [
      store, m.mix, String(m.halfRate), int(m.open.rps), ms(m.open.latencyMs.p50), ms(m.open.latencyMs.p99),
      ms(m.open.latencyMs.max), String(openErrors(m.open)), ms(m.open.schedulerLagMs),
      `${ms(m.serverLoop.p99_ms)} / ${ms(m.serverLoop.max_ms)}`,
      `${m.serverLoop.gc.count} / ${m.serverLoop.gc.over_2ms} / ${ms(m.serverLoop.gc.max_ms)}`,
      `${ms(m.openBare.latencyMs.p50)} / ${ms(m.openBare.latencyMs.p99)} / ${ms(m.openBare.latencyMs.max)}`
    ]))
  ))
}
for (const b of breakdowns) {
  console.log(`\nCPU per ${breakdownMix} request, ${b.store} store (V8 CPU profile over ${breakdownSeconds} s each: ` +
    `${b.requests} profile requests, ${b.bare.requests} to the bare route; µs of CPU per request, idle left out)`)
  const total = (rows: BreakdownRow[]): number => rows.reduce((a, r) => a + r.usPerRequest, 0)
  console.log(table(['room', 'profile µs', 'share', 'bare route µs'], [
    ...b.rows.map((r, k) => [r.room, r.usPerRequest.toFixed(1), `${(r.share * 100).toFixed(1)} %`,
      b.bare.rows[k].usPerRequest.toFixed(1)]),
    ['total', total(b.rows).toFixed(1), '100 %', total(b.bare.rows).toFixed(1)]
  ]))
}
if (!breakdownOnly) {
  const path = writeResult('profile', {
    seconds, warmup_seconds: warmupSeconds, open_warmup_seconds: openWarmupSeconds, connections, points, pairs,
    server_node_args: serverNodeArgs, open_loop_client: openClient,
    closed_loop_tool: WRK !== null ? 'wrk' : 'loadgen',
    stores: results,
    ...(withBreakdown ? { breakdown: breakdowns } : {})
  })
  console.log(`\n→ ${path}`)
}
if (withBreakdown) {
  const detail = writeResult('profile-breakdown', { breakdown_seconds: breakdownSeconds, connections, breakdowns })
  console.log(`→ ${detail}`)
}
