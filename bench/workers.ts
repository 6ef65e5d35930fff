// bench/workers: what a second worker thread buys, on cached data, in one run: a 1 000-member
// ensemble, one flight, and a 100 000-point samples request (Arrow and JSON), each against two
// servers started with ALOFT_WORKERS=1 and =2, the rounds alternated between them (and which
// goes first) so that load from elsewhere on the machine falls on both alike. An ensemble's
// evaluations stay on the main thread (the row shows a second worker buys it nothing): sent to the
// pool, a hop per RK4 stage (~650 a flight) cost more CPU than the kernel it moved, and no wall time.
//   npx tsc -p tsconfig.json && node dist/bench/workers.js [--rounds 5] [--points 100000] [ALOFT_X=value …]
// Rows: per case, the median wall time with 1 and 2 workers and their ratio, and the mean server
// CPU per request (user + system, every thread). Writes bench/results/workers.json.
import {
  SAMPLE, machine, ms, numberArg, serverCpuUs, startServer, table, writeResult, type ServerChild
} from './lib/index.js'
import { postBytes } from './lib/http-post.js'
import { arrowBody, jsonBody, randomPoints } from './lib/sample-points.js'
import { summarize } from './lib/stats.js'

const ROUNDS = numberArg('rounds', 5)
const POINTS = numberArg('points', 100_000)
const ARROW = 'application/vnd.apache.arrow.stream'
const FLIGHT = {
  launch_latitude: 52.2297, launch_longitude: 21.0122, launch_datetime: '2020-08-04T12:00:00Z',
  ascent_rate: 5, burst_altitude: 30000, descent_rate: 5
}
const ENSEMBLE = { ...FLIGHT, ensemble: { members: 1000, ascent_rate_sd: 0.5, burst_altitude_sd: 2000,
  descent_rate_sd: 0.5, seed: 1 } }

interface Case { name: string, post: (server: ServerChild) => Promise<void> }

async function posted (server: ServerChild, path: string, body: string | Uint8Array, type: string): Promise<void> {
  const headers = { 'x-api-key': server.info.key, 'content-type': type, accept: type }
  const { status, bytes } = await postBytes(`${server.info.aloftUrl}${path}`, headers, body)
  if (status !== 200) throw new Error(`${path} answered ${status}: ${new TextDecoder().decode(bytes).slice(0, 300)}`)
}

const points = randomPoints(POINTS, 20200804)
const arrow = arrowBody(points)
const json = jsonBody(points)
const CASES: Case[] = [
  { name: '1 000-member ensemble', post: async (s) => await posted(s, '/v1/atmosphere/trajectory',
    JSON.stringify(ENSEMBLE), 'application/json') },
  { name: 'one flight', post: async (s) => await posted(s, '/v1/atmosphere/trajectory', JSON.stringify(FLIGHT),
    'application/json') },
  { name: `samples ${POINTS} points, Arrow`, post: async (s) => await posted(s,
    '/v1/atmosphere/samples?altitude_reference=agl', arrow, ARROW) },
  { name: `samples ${POINTS} points, JSON`, post: async (s) => await posted(s, '/v1/atmosphere/samples', json,
    'application/json') }
]

/** The servers compared; `KEY=VALUE` arguments set more of their environment (both alike). */
const SETUPS = [{ name: '1 worker', env: { ALOFT_WORKERS: '1' } }, { name: '2 workers', env: { ALOFT_WORKERS: '2' } }]
const extra = Object.fromEntries(process.argv.filter((a) => /^[A-Z_]+=/.test(a)).map((a) => a.split('=')))
const env = { ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_SAMPLES_MAX_POINTS: String(POINTS), ...extra }
const servers = await Promise.all(SETUPS.map(async (s) => await startServer({ ...env, ...s.env })))
/** wall ms and server CPU ms, by case then setup. */
const wall = CASES.map(() => SETUPS.map((): number[] => []))
const cpu = CASES.map(() => SETUPS.map((): number[] => []))
try {
  // every unit decoded and cached, the code warmed, on each
  for (const s of servers) for (const c of CASES) await c.post(s)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, c] of CASES.entries()) {
      // each setup first in turn, and the order reversed every other round
      const order = SETUPS.map((_, i) => (i + round) % SETUPS.length)
      if (round % 2 === 1) order.reverse()
      for (const s of order) {
        const cpu0 = await serverCpuUs(servers[s])
        const t0 = performance.now()
        await c.post(servers[s])
        wall[k][s].push(performance.now() - t0)
        cpu[k][s].push((await serverCpuUs(servers[s]) - cpu0) / 1000)
      }
    }
  }
} finally {
  await Promise.all(servers.map(async (s) => await s.stop()))
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length
const rows = CASES.flatMap((c, k) => SETUPS.map((setup, i) => {
  const w = summarize(wall[k][i]).p50
  return [i === 0 ? c.name : '', setup.name, ms(w, 1), (w / summarize(wall[k][0]).p50).toFixed(2),
    ms(mean(cpu[k][i]), 1), (mean(cpu[k][i]) / mean(cpu[k][0])).toFixed(2)]
}))
process.stdout.write(`bench/workers: cached data, ${ROUNDS} alternated rounds; wall: median, server CPU: mean ` +
  `per request${Object.keys(extra).length > 0 ? `; ${JSON.stringify(extra)}` : ''}\n`)
process.stdout.write(table(['request', 'server', 'wall ms', 'vs 1 worker', 'server CPU ms', 'vs 1 worker'],
  rows) + '\n')
const result = {
  machine: machine(), rounds: ROUNDS, points: POINTS, env: extra,
  cases: CASES.map((c, k) => ({
    name: c.name,
    servers: SETUPS.map((setup, i) => ({ name: setup.name, env: setup.env, wall_ms_p50: summarize(wall[k][i]).p50,
      wall_ms: wall[k][i], server_cpu_ms_mean: mean(cpu[k][i]) }))
  }))
}
process.stdout.write(`→ ${writeResult('workers', result)}\n`)
