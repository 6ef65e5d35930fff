// bench/samples: bulk samples end to end over HTTP (docs/DESIGN.md §6), against a vectorised numpy
// implementation of the same method and against one profile request per point, in one run.
//   npx tsc -p tsconfig.json && node dist/bench/samples.js [--points 100000] [--rounds 5]
// 100 000 random points over the bundled region (48–56° N, 13–25° E), 0–20 000 m AGL, times
// 2020-08-04 12Z–00Z (the 12Z run's f000/f006/f012 bracket them), units decoded and cached first.
// Rows: Arrow in/out and JSON in/out (median of `rounds` sequential requests, one client reading
// with node:http; the same again reading with fetch, which costs the client far more), the
// worker threshold (the same request on the main thread and on the pool, at several sizes), numpy
// (bench/python/samples_numpy.py on the same JSON request: its own timing, with and without reading the
// GRIB files), one profile request per point (a sample of points, 8 clients, scaled), and the
// server's peak RSS above idle during a 100 000-point request. Writes bench/results/samples.json.
import { spawnSync } from 'node:child_process'
import { ROOT, SAMPLE, int, machine, ms, numberArg, serverCpuUs, serverMemory, startServer, table, writeResult,
  type ServerChild } from './lib/index.js'
import { postWith } from './lib/http-post.js'
import { arrowBody, jsonBody, randomPoints, type Points } from './lib/sample-points.js'
import { summarize } from './lib/stats.js'

const POINTS = numberArg('points', 100_000)
const ROUNDS = numberArg('rounds', 5)
const ARROW = 'application/vnd.apache.arrow.stream'

/** Seconds for one samples request, read with node:http (default) or fetch. */
async function post (server: ServerChild, body: string | Uint8Array, arrow: boolean,
  client: 'http' | 'fetch' = 'http'): Promise<number> {
  const started = performance.now()
  const url = `${server.info.aloftUrl}/v1/atmosphere/samples${arrow ? '?altitude_reference=agl' : ''}`
  const headers = { 'x-api-key': server.info.key, 'content-type': arrow ? ARROW : 'application/json',
    accept: arrow ? ARROW : 'application/json' }
  const { status, bytes } = await postWith(client, url, headers, body)
  if (status !== 200) throw new Error(`samples answered ${status}: ${new TextDecoder().decode(bytes)}`)
  return (performance.now() - started) / 1000
}

async function medianSeconds (run: () => Promise<number>, rounds: number): Promise<number> {
  const seconds: number[] = []
  for (let k = 0; k < rounds; k++) seconds.push(await run())
  return summarize(seconds).p50
}

function numpy (body: string): { samples_per_second: number, compute_samples_per_second: number } | null {
  const p = spawnSync('/usr/bin/python3', [`${ROOT}bench/python/samples_numpy.py`, '--data', SAMPLE], { input: body,
    maxBuffer: 1 << 30 })
  if (p.status !== 0) {
    process.stderr.write(`numpy yardstick failed (needs python3-eccodes and numpy): ${p.stderr.toString()}\n`)
    return null
  }
  const line = p.stderr.toString().trim().split('\n').pop() ?? '{}'
  return JSON.parse(line) as { samples_per_second: number, compute_samples_per_second: number }
}

async function profilesPerSecond (server: ServerChild, p: Points, count: number): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let k = next++; k < count; k = next++) {
      const res = await fetch(`${server.info.aloftUrl}/v1/atmosphere/profile`, {
        method: 'POST', headers: { 'x-api-key': server.info.key, 'content-type': 'application/json' },
        body: JSON.stringify({ latitude: p.lat[k], longitude: p.lon[k],
          altitudes_m: [p.alt[k]], altitude_reference: 'agl', time: new Date(p.time[k]).toISOString() })
      })
      await res.arrayBuffer()
    }
  }))
  return count / ((performance.now() - started) / 1000)
}

const env = { ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_WORKERS: '2', ALOFT_SAMPLES_MAX_POINTS: String(POINTS) }
const points = randomPoints(POINTS, 20200804)
const json = jsonBody(points)
const arrow = arrowBody(points)
const rows: string[][] = []
const result: Record<string, unknown> = { machine: machine(), points: POINTS, rounds: ROUNDS }

const server = await startServer(env)
try {
  await post(server, jsonBody(randomPoints(1000, 1)), false) // decode and cache the three units
  // peak RSS above idle during one 100 000-point JSON request, the first large one (idle: the
  // units decoded and cached; measured after other large requests, idle already holds their peak)
  const idle = (await serverMemory(server)).rss
  let peak = idle
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, (await serverMemory(server)).rss)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })()
  await post(server, json, false)
  sampling = false
  await sampler
  result.peak_rss_above_idle_mib = (peak - idle) / 2 ** 20
  rows.push(['peak RSS above idle (JSON request)', '', '', `${ms((peak - idle) / 2 ** 20, 1)} MiB (goal < 200)`])

  // the server's CPU per request beside each: steadier than wall time when the machine is shared
  // (an Arrow request first: the first one loads apache-arrow, which no mean here should carry)
  await post(server, arrow, true)
  let cpu0 = await serverCpuUs(server)
  const arrowSeconds = await medianSeconds(async () => await post(server, arrow, true), ROUNDS)
  const arrowCpuMs = (await serverCpuUs(server) - cpu0) / ROUNDS / 1000
  cpu0 = await serverCpuUs(server)
  const jsonSeconds = await medianSeconds(async () => await post(server, json, false), ROUNDS)
  const jsonCpuMs = (await serverCpuUs(server) - cpu0) / ROUNDS / 1000
  result.arrow_samples_per_second = POINTS / arrowSeconds
  result.json_samples_per_second = POINTS / jsonSeconds
  result.arrow_server_cpu_ms = arrowCpuMs
  result.json_server_cpu_ms = jsonCpuMs
  rows.push(['HTTP, Arrow in and out', int(POINTS / arrowSeconds), ms(arrowSeconds * 1000, 1),
    `goal ≥ 2 000 000/s; server CPU ${ms(arrowCpuMs, 1)} ms a request`])
  rows.push(['HTTP, JSON in and out', int(POINTS / jsonSeconds), ms(jsonSeconds * 1000, 1),
    `goal ≥ 500 000/s; server CPU ${ms(jsonCpuMs, 1)} ms a request`])
  // the same requests read through fetch, as a casual JavaScript client would
  const arrowFetch = await medianSeconds(async () => await post(server, arrow, true, 'fetch'), ROUNDS)
  const jsonFetch = await medianSeconds(async () => await post(server, json, false, 'fetch'), ROUNDS)
  result.fetch_client = { arrow_samples_per_second: POINTS / arrowFetch, json_samples_per_second: POINTS / jsonFetch }
  rows.push(['  the same, client reading with fetch: Arrow', int(POINTS / arrowFetch), ms(arrowFetch * 1000, 1), ''])
  rows.push(['  the same, client reading with fetch: JSON', int(POINTS / jsonFetch), ms(jsonFetch * 1000, 1), ''])

  const profileCount = Math.min(2000, POINTS)
  const perSecond = await profilesPerSecond(server, points, profileCount)
  result.profile_points_per_second = perSecond
  rows.push([`one profile request per point (${profileCount}, 8 clients)`, int(perSecond),
    ms(POINTS / perSecond * 1000, 0), `samples Arrow ${ms(POINTS / arrowSeconds / perSecond, 0)}× faster`])
} finally {
  await server.stop()
}

// where the worker pool starts to pay: the same request below and above the threshold
const threshold: Array<{ points: number, main_ms: number, workers_ms: number }> = []
for (const [name, workerPoints] of [['main', String(10_000_000)], ['workers', '1']] as const) {
  const s = await startServer({ ...env, ALOFT_SAMPLES_WORKER_POINTS: workerPoints })
  try {
    await post(s, jsonBody(randomPoints(1000, 1)), false)
    for (const n of [1000, 4000, 16_000, 32_000, 64_000].filter((size) => size <= POINTS)) {
      const body = arrowBody(randomPoints(n, n))
      const seconds = await medianSeconds(async () => await post(s, body, true), ROUNDS)
      let row = threshold.find((r) => r.points === n)
      if (row === undefined) threshold.push(row = { points: n, main_ms: NaN, workers_ms: NaN })
      row[name === 'main' ? 'main_ms' : 'workers_ms'] = seconds * 1000
    }
  } finally {
    await s.stop()
  }
}
result.threshold = threshold
for (const r of threshold) {
  rows.push([`Arrow ${r.points} points: main thread vs pool`, '', `${ms(r.main_ms, 1)} / ${ms(r.workers_ms, 1)}`,
    r.workers_ms < r.main_ms ? 'pool faster' : 'main faster'])
}

const np = numpy(json)
if (np !== null) {
  result.numpy = np
  const ours = result.arrow_samples_per_second as number
  rows.push(['numpy yardstick, end to end (reads GRIB)', int(np.samples_per_second), '',
    `aloft Arrow ${ms(ours / np.samples_per_second, 1)}×`])
  rows.push(['numpy yardstick, compute only', int(np.compute_samples_per_second), '',
    `aloft Arrow ${ms(ours / np.compute_samples_per_second, 1)}× (goal ≥ 20×)`])
}

process.stdout.write(`bench/samples: ${POINTS} random points, tiles cached, median of ${ROUNDS}\n`)
process.stdout.write(table(['what', 'samples/s', 'ms', 'note'], rows) + '\n')
process.stdout.write(`→ ${writeResult('samples', result)}\n`)
