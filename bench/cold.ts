// bench/cold: cold profiles through the local NOAA stand-in (src/standin/server.ts) on a
// temporary bucket-layout copy of the sample (with .idx files):
// - grib filter (`ALOFT_SOURCE=filter:<url>`, 1° tiles): sequential requests, each in a tile no
//   request asked before (a distinct unit: fetch, decode, interpolate); the stand-in's own time
//   for the same filter URLs, asked directly; then a burst of concurrent requests over a few new
//   tiles, counting the stand-in's data requests per tile (single flight: must be 1).
// - bucket mirror (`ALOFT_SOURCE=mirror:<url>`, .idx + byte ranges): the same over whole files.
//   npx tsc -p tsconfig.json && node dist/bench/cold.js [--sequential 30] [--concurrent 50]
// Writes bench/results/cold.json.
import { startUpstream, type UpstreamServer } from '../src/standin/server.js'
import {
  ms, numberArg, postProfile, profileBody, startServer, summarize, table, writeResult, type ServerChild, type Summary
} from './lib/index.js'
import { buildSampleTree } from './lib/sample-tree.js'

const sequential = numberArg('sequential', 30)
const concurrent = numberArg('concurrent', 50)
const DISTINCT = 5
const FILTER_PATH = '/cgi-bin/filter_gfs_0p25.pl'

interface Cold {
  source: 'filter' | 'mirror'
  sequential: {
    count: number
    latencyMs: Summary
    upstreamMs: Summary | null
    statuses: Record<string, number>
    dataRequestsPerUnit?: Record<string, number>
  }
  concurrent: {
    requests: number
    distinct: number
    latencyMs: Summary
    statuses: Record<string, number>
    dataRequestsPerUnit: Record<string, number>
    idxRequestsPerUnit: Record<string, number> | null
  }
}

/** Valid time of a bucket key, as the API's RFC 3339. */
function validTimeOf (key: string): string {
  const m = /^gfs\.(\d{4})(\d\d)(\d\d)\/(\d\d)\/atmos\/gfs\.t\d\dz\.pgrb2\.0p25\.f(\d{3})$/.exec(key)
  if (m === null) throw new Error(`not a bucket key: ${key}`)
  const run = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]))
  return new Date(run + Number(m[5]) * 3_600_000).toISOString().replace('.000Z', 'Z')
}

/** Points inside distinct 1° tiles of the sample box (48–56N 13–25E), row by row. */
function tileCentres (): Array<{ latitude: number, longitude: number }> {
  const out: Array<{ latitude: number, longitude: number }> = []
  for (let lat = 48.5; lat < 56; lat++) {
    for (let lon = 13.5; lon < 25; lon++) out.push({ latitude: lat, longitude: lon })
  }
  return out
}

const count = (xs: number[]): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const x of xs) out[String(x)] = (out[String(x)] ?? 0) + 1
  return out
}

/** Upstream data requests since `from`, grouped: filter by query, bucket by object key. */
function dataRequests (
  up: UpstreamServer,
  from: number,
  source: 'filter' | 'mirror'
): { data: Record<string, number>, idx: Record<string, number> } {
  const data: Record<string, number> = {}
  const idx: Record<string, number> = {}
  for (const r of up.requests.slice(from)) {
    const path = r.url.split('?')[0]
    if (source === 'filter' && path === FILTER_PATH) data[r.url] = (data[r.url] ?? 0) + 1
    if (source === 'mirror' && r.method === 'GET' && path.includes('/atmos/gfs.')) {
      if (path.endsWith('.idx')) idx[path.slice(0, -4)] = (idx[path.slice(0, -4)] ?? 0) + 1
      else data[path] = (data[path] ?? 0) + 1
    }
  }
  return { data, idx }
}

async function withServer<T> (env: Record<string, string>, run: (s: ServerChild) => Promise<T>): Promise<T> {
  const server = await startServer({ ALOFT_UPSTREAM_PER_MINUTE: '100000', ALOFT_TILE_DEGREES: '1', ...env })
  try { return await run(server) } finally { await server.stop() }
}

async function coldFilter (up: UpstreamServer, keys: string[]): Promise<Cold> {
  const tiles = tileCentres()
  const seqTime = validTimeOf(keys.find((k) => k.includes('20200804/12') && k.endsWith('f000'))!)
  const burstTime = validTimeOf(keys.find((k) => k.includes('20200815/12') && k.endsWith('f000'))!)
  return await withServer({ ALOFT_SOURCE: `filter:${up.filterUrl}` }, async (server) => {
    // first request: the catalog's listing pages and the first connection; not counted
    const last = tiles[tiles.length - 1]
    const warm = await postProfile(server.info, profileBody(last.latitude, last.longitude, seqTime))
    if (warm.status !== 200) throw new Error(`warm-up answered ${warm.status}: ${JSON.stringify(warm.json)}`)
    const latencies: number[] = []
    const statuses: number[] = []
    const from = up.requests.length
    for (let k = 0; k < Math.min(sequential, tiles.length - 1); k++) {
      const r = await postProfile(server.info, profileBody(tiles[k].latitude, tiles[k].longitude, seqTime))
      latencies.push(r.ms)
      statuses.push(r.status)
    }
    const seqRequests = dataRequests(up, from, 'filter').data
    // the stand-in's own share: the same filter URLs asked directly
    const urls = Object.keys(seqRequests)
    const upstreamMs: number[] = []
    for (const u of urls) {
      const t0 = performance.now()
      await (await fetch(up.url + u)).arrayBuffer()
      upstreamMs.push(performance.now() - t0)
    }
    // the burst: `concurrent` requests at once over DISTINCT new tiles, at several points in each
    const burstFrom = up.requests.length
    const burst = await Promise.all(Array.from({ length: concurrent }, async (_, k) => {
      const t = tiles[k % DISTINCT]
      const jiggle = 0.25 * Math.floor(k / DISTINCT) % 0.75 // another grid point of the same tile
      const body = profileBody(t.latitude + jiggle - 0.25, t.longitude + jiggle - 0.25, burstTime)
      return await postProfile(server.info, body)
    }))
    return {
      source: 'filter' as const,
      sequential: {
        count: latencies.length,
        latencyMs: summarize(latencies),
        upstreamMs: summarize(upstreamMs),
        statuses: count(statuses),
        dataRequestsPerUnit: seqRequests
      },
      concurrent: {
        requests: concurrent,
        distinct: DISTINCT,
        latencyMs: summarize(burst.map((r) => r.ms)),
        statuses: count(burst.map((r) => r.status)),
        dataRequestsPerUnit: dataRequests(up, burstFrom, 'filter').data,
        idxRequestsPerUnit: null
      }
    }
  })
}

async function coldMirror (up: UpstreamServer, keys: string[]): Promise<Cold> {
  const env = { ALOFT_SOURCE: `mirror:${up.bucketUrl}` }
  const point = { latitude: 52.23, longitude: 21.01 }
  // sequential: one fresh server (its own empty cache), every file once after a warm-up file
  const seq = await withServer(env, async (server) => {
    const warm = await postProfile(server.info, profileBody(point.latitude, point.longitude, validTimeOf(keys[0])))
    if (warm.status !== 200) throw new Error(`warm-up answered ${warm.status}: ${JSON.stringify(warm.json)}`)
    const latencies: number[] = []
    const statuses: number[] = []
    const from = up.requests.length
    for (const key of keys.slice(1)) {
      const r = await postProfile(server.info, profileBody(point.latitude, point.longitude, validTimeOf(key)))
      latencies.push(r.ms)
      statuses.push(r.status)
    }
    const { data } = dataRequests(up, from, 'mirror')
    return {
      count: latencies.length,
      latencyMs: summarize(latencies),
      upstreamMs: null,
      statuses: count(statuses),
      dataRequestsPerUnit: data
    }
  })
  // burst: another fresh server, `concurrent` requests over DISTINCT files at several points
  const burstKeys = keys.slice(1, 1 + DISTINCT)
  const conc = await withServer(env, async (server) => {
    const warm = await postProfile(server.info, profileBody(point.latitude, point.longitude, validTimeOf(keys[0])))
    if (warm.status !== 200) throw new Error(`warm-up answered ${warm.status}`)
    const from = up.requests.length
    const burst = await Promise.all(Array.from({ length: concurrent }, async (_, k) => {
      const j = Math.floor(k / DISTINCT)
      return await postProfile(server.info, profileBody(49 + 0.5 * j, 14 + j, validTimeOf(burstKeys[k % DISTINCT])))
    }))
    const { data, idx } = dataRequests(up, from, 'mirror')
    return {
      requests: concurrent,
      distinct: DISTINCT,
      latencyMs: summarize(burst.map((r) => r.ms)),
      statuses: count(burst.map((r) => r.status)),
      dataRequestsPerUnit: data,
      idxRequestsPerUnit: idx
    }
  })
  return { source: 'mirror', sequential: seq, concurrent: conc }
}

const tree = await buildSampleTree()
let up: UpstreamServer | null = null
try {
  up = await startUpstream({ root: tree.root })
  const results = [await coldFilter(up, tree.keys), await coldMirror(up, tree.keys)]
  const perUnit = (x: Record<string, number> | null): string => {
    if (x === null) return '-'
    const v = Object.values(x)
    return v.length === 0 ? 'none' : `${Math.min(...v)}..${Math.max(...v)} (${v.length} units)`
  }
  console.log('cold: profiles of units no request asked before, through the local NOAA stand-in (loopback)')
  console.log(table(
    [
      'source', 'sequential', 'p50 ms', 'p99 ms', 'max ms', 'stand-in alone p50 ms', 'data requests per unit',
      'statuses'
    ],
    results.map((r) => [
      r.source === 'filter' ? 'filter (1° tiles)' : 'mirror (bucket, .idx + ranges)',
      String(r.sequential.count),
      ms(r.sequential.latencyMs.p50),
      ms(r.sequential.latencyMs.p99),
      ms(r.sequential.latencyMs.max),
      r.sequential.upstreamMs === null ? '-' : ms(r.sequential.upstreamMs.p50),
      perUnit(r.sequential.dataRequestsPerUnit ?? null),
      JSON.stringify(r.sequential.statuses)
    ])
  ))
  console.log('\nconcurrent burst: all requests at once over a few distinct cold units (several grid points each)')
  console.log(table(
    [
      'source', 'requests', 'distinct units', 'p50 ms', 'max ms', 'data requests per unit', 'idx requests per unit',
      'statuses'
    ],
    results.map((r) => [
      r.source,
      String(r.concurrent.requests),
      String(r.concurrent.distinct),
      ms(r.concurrent.latencyMs.p50),
      ms(r.concurrent.latencyMs.max),
      perUnit(r.concurrent.dataRequestsPerUnit),
      perUnit(r.concurrent.idxRequestsPerUnit),
      JSON.stringify(r.concurrent.statuses)
    ])
  ))
  const path = writeResult('cold', { sequential_requested: sequential, concurrent_requested: concurrent, results })
  console.log(`\n→ ${path}`)
} finally {
  await up?.close()
  await tree.remove()
}
