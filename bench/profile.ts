// bench/profile: cached profile throughput and latency against the bare polka route of the same
// server process, side by side in one run; then the profile's p99 at half its maximum (open
// loop, fixed rate). Once per ALOFT_INTERPOLATE setting (main, the default, and worker).
//   npx tsc -p tsconfig.json && node dist/bench/profile.js [--seconds 5] [--connections 32]
// The server (bench/server.js) serves data/sample as mirror:<dir> with the in-memory store; the
// load comes from wrk (closed loop) when installed and bench/loadgen (open loop) in other
// processes. Writes bench/results/profile.json.
import { closedLoop, WRK, type ClosedRun } from './wrk.js'
import { int, loadgen, ms, numberArg, postProfile, profileBody, SAMPLE, startServer, table, writeResult } from './lib.js'
import type { LoadResult } from './loadgen.js'

const seconds = numberArg('seconds', 5)
const connections = numberArg('connections', 32)
const warmupSeconds = 1

interface ModeResult {
  interpolate: 'main' | 'worker'
  bare: ClosedRun
  /** The bare app answering the profile's own response bytes (computed once): the payload's share. */
  sized: ClosedRun
  profile: ClosedRun
  ratio: number
  halfRate: number
  open: LoadResult
}

async function measure (interpolate: 'main' | 'worker'): Promise<ModeResult> {
  const body = profileBody()
  const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_INTERPOLATE: interpolate, BENCH_SIZED_BODY: body })
  try {
    const first = await postProfile(server.info, body) // decodes the unit: every later answer is cached
    if (first.status !== 200) throw new Error(`warm-up profile answered ${first.status}: ${JSON.stringify(first.json)}`)
    const headers = { 'content-type': 'application/json', 'x-api-key': server.info.key }
    const profileTarget = { url: `${server.info.aloftUrl}/v1/atmosphere/profile`, method: 'POST' as const, headers, body }
    const bare = await closedLoop({ url: `${server.info.bareUrl}/`, method: 'GET' }, { connections, seconds, warmupSeconds })
    const sized = await closedLoop({ url: `${server.info.bareUrl}/sized`, method: 'GET' }, { connections, seconds, warmupSeconds })
    const profile = await closedLoop(profileTarget, { connections, seconds, warmupSeconds })
    const halfRate = Math.max(1, Math.round(profile.rps / 2))
    const open = await loadgen({ mode: 'open', rate: halfRate, connections: 64, seconds, warmupSeconds, requests: [{ kind: 'profile', ...profileTarget }] })
    return { interpolate, bare, sized, profile, ratio: profile.rps / bare.rps, halfRate, open }
  } finally {
    await server.stop()
  }
}

const modes: ModeResult[] = []
for (const mode of ['main', 'worker'] as const) modes.push(await measure(mode))

const openErrors = (r: LoadResult): number => Object.entries(r.outcomes).filter(([k]) => !k.endsWith(' 200')).reduce((n, [, v]) => n + v, 0)
console.log(`profile: cached profiles vs the bare polka route, same server process (${seconds} s each after ${warmupSeconds} s warm-up, ${connections} connections, ${WRK !== null ? 'wrk' : 'bench/loadgen'} closed loop)`)
console.log(table(
  ['ALOFT_INTERPOLATE', 'bare req/s', 'profile req/s', 'ratio', 'bare p50 ms', 'bare p99 ms', 'profile p50 ms', 'profile p99 ms', 'bare+payload req/s', 'errors'],
  modes.map((m) => [m.interpolate, int(m.bare.rps), int(m.profile.rps), m.ratio.toFixed(2), ms(m.bare.p50Ms), ms(m.bare.p99Ms), ms(m.profile.p50Ms), ms(m.profile.p99Ms),
    int(m.sized.rps), String(m.bare.errors + m.sized.errors + m.profile.errors)])
))
console.log(`\nprofile at half its maximum (open loop, bench/loadgen, latency from the scheduled start, ${seconds} s)`)
console.log(table(
  ['ALOFT_INTERPOLATE', 'rate req/s', 'achieved req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-200', 'scheduler lag ms'],
  modes.map((m) => [m.interpolate, String(m.halfRate), int(m.open.rps), ms(m.open.latencyMs.p50), ms(m.open.latencyMs.p99), ms(m.open.latencyMs.max), String(openErrors(m.open)), ms(m.open.schedulerLagMs)])
))
console.log('(bare+payload: the bare polka app answering the same profile response bytes, computed once: what the payload alone costs)')
const path = writeResult('profile', { seconds, warmup_seconds: warmupSeconds, connections, closed_loop_tool: WRK !== null ? 'wrk' : 'loadgen', modes })
console.log(`\n→ ${path}`)
