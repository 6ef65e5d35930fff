// bench/surface-layer: what the surface layer (docs/DESIGN.md §8, `surface_layer: true`) costs, side
// by side in one run on one server:
// - cached profile req/s with and without the flag, hot (one body) and fresh (never the same body),
//   the same bodies both ways (heights 500 m – 15 km AGL, answered with and without the layer), and
//   a near-ground body (10, 50, 100, 300 m AGL) that only the flag answers, for scale;
// - bulk samples, 100 000 random points (0–20 km AGL), Arrow and JSON, with and without the flag;
// - the unit itself through the local NOAA stand-in: bytes and time of a grib-filter tile and of a
//   bucket unit's `.idx` byte ranges, with the surface layer's records and without them (the query
//   and record choice of before the layer: no `var_PRES`, no `lev_*_m_above_ground`).
// Each pair is measured `--pairs` times in alternating order (without first, then with first…); the
// median shown. Goal (issue 33): with ≥ 0.9× without.
//   npx tsc -p tsconfig.json && node dist/bench/surface-layer.js [--seconds 5] [--pairs 3] [--points 100000]
// Writes bench/results/surface-layer.json.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startUpstream } from '../src/standin/server.js'
import { filterQuery, parseBucketKey, tileOf } from '../src/source/index.js'
import { bridge, coalesce, MAX_RANGE_GAP, selectIdx } from '../src/source/unit.js'
import { parseIdx, scanMessages, type IdxEntry } from '../src/grib/index.js'
import { freshProfileBodies } from './lib/bodies.js'
import { postWith } from './lib/http-post.js'
import {
  int, ms, numberArg, postProfile, profileBody, SAMPLE, serverCpuUs, startServer, summarize, table, writeResult,
  type ServerChild
} from './lib/index.js'
import { buildSampleTree } from './lib/sample-tree.js'
import { arrowBody, jsonBody, randomPoints } from './lib/sample-points.js'
import { closedLoop } from './lib/wrk.js'

const seconds = numberArg('seconds', 5)
const pairs = numberArg('pairs', 3)
const POINTS = numberArg('points', 100_000)
const ARROW = 'application/vnd.apache.arrow.stream'
const FRESH_PER_FILE = 200_000

const median = (xs: number[]): number => summarize(xs).p50
const withFlag = (body: string): string => JSON.stringify({ ...JSON.parse(body) as object, surface_layer: true })

const dir = await mkdtemp(join(tmpdir(), 'aloft-bench-surface-'))
let seed = 5000
/** A file of never-seen profile bodies (with or without the flag), one per line. */
async function freshFile (flag: boolean): Promise<string> {
  const next = freshProfileBodies(seed++)
  const path = join(dir, `fresh-${seed}.txt`)
  const bodies = Array.from({ length: FRESH_PER_FILE }, () => flag ? withFlag(next()) : next())
  await writeFile(path, bodies.join('\n') + '\n')
  return path
}

/** Alternate `run(false)` and `run(true)` `pairs` times (order flipped each pair); medians of each side. */
type Pair = { off: number, on: number, ratios: number[] }
async function alternate (run: (flag: boolean) => Promise<number>): Promise<Pair> {
  const off: number[] = []
  const on: number[] = []
  const ratios: number[] = []
  for (let k = 0; k < pairs; k++) {
    const order = k % 2 === 0 ? [false, true] : [true, false]
    const got: Record<string, number> = {}
    for (const flag of order) got[String(flag)] = await run(flag)
    off.push(got.false)
    on.push(got.true)
    ratios.push(got.true / got.false)
  }
  return { off: median(off), on: median(on), ratios }
}

// ---- cached profiles ----

interface Row { off: number, on: number, ratio: number }
/** req/s and the server's CPU µs per request, without and with the flag. */
interface ProfileRow extends Row { mix: string, cpuOff: number, cpuOn: number }
async function profileRates (server: ServerChild): Promise<ProfileRow[]> {
  const url = `${server.info.aloftUrl}/v1/atmosphere/profile`
  const headers = { 'content-type': 'application/json', 'x-api-key': server.info.key }
  const hot = profileBody(52.23, 21.01, '2020-08-04T18:00:00Z', [500, 1000, 3000, 10000])
  const nearGround = withFlag(profileBody(52.23, 21.01, '2020-08-04T18:00:00Z', [10, 50, 100, 300]))
  // decode the three units and answer every body kind once before measuring
  for (const body of [hot, withFlag(hot), nearGround, ...Array.from({ length: 64 }, freshProfileBodies(1))]) {
    const r = await postProfile(server.info, body)
    if (r.status !== 200) throw new Error(`warm-up profile answered ${r.status}: ${JSON.stringify(r.json)}`)
  }
  const loop = { connections: 32, seconds, warmupSeconds: 1 }
  const cpuPerRequest: Record<string, number[]> = {}
  /** req/s of a closed-loop run; the server's CPU µs per request over it kept under `label`. */
  const rate = async (label: string, target: { body?: string, bodyFile?: string }): Promise<number> => {
    const before = await serverCpuUs(server)
    const r = await closedLoop({ url, method: 'POST', headers, ...target }, loop)
    if (r.errors > 0) throw new Error(`${r.errors} errors in a profile run`)
    ;(cpuPerRequest[label] ??= []).push((await serverCpuUs(server) - before) / r.requests)
    return r.rps
  }
  const cpu = (label: string): number => median(cpuPerRequest[label] ?? [NaN])
  const row = (mix: string, pair: Pair): ProfileRow => ({ mix, off: pair.off, on: pair.on,
    ratio: median(pair.ratios), cpuOff: cpu(`${mix} off`), cpuOn: cpu(`${mix} on`) })
  const rows: ProfileRow[] = []
  // a warm-up run each way first: the first closed loop after the warm-up requests reads low
  for (const flag of [false, true]) await rate('warm-up', { body: flag ? withFlag(hot) : hot })
  rows.push(row('hot', await alternate(async (flag) =>
    await rate(`hot ${flag ? 'on' : 'off'}`, { body: flag ? withFlag(hot) : hot }))))
  rows.push(row('fresh', await alternate(async (flag) =>
    await rate(`fresh ${flag ? 'on' : 'off'}`, { bodyFile: await freshFile(flag) }))))
  const near: number[] = []
  for (let k = 0; k < pairs; k++) near.push(await rate('near on', { body: nearGround }))
  rows.push({ mix: 'near', off: NaN, on: median(near), ratio: NaN, cpuOff: NaN, cpuOn: cpu('near on') })
  return rows
}

// ---- bulk samples ----

async function samplesTimes (server: ServerChild): Promise<Array<Row & { form: string }>> {
  const points = randomPoints(POINTS, 20200804)
  const json = jsonBody(points)
  const jsonOn = withFlag(json)
  const arrow = arrowBody(points)
  const post = async (body: string | Uint8Array, asArrow: boolean, flag: boolean): Promise<number> => {
    const query = asArrow ? `?altitude_reference=agl${flag ? '&surface_layer=true' : ''}` : ''
    const type = asArrow ? ARROW : 'application/json'
    const started = performance.now()
    const { status, bytes } = await postWith('http', `${server.info.aloftUrl}/v1/atmosphere/samples${query}`,
      { 'x-api-key': server.info.key, 'content-type': type, accept: type }, body)
    if (status !== 200) throw new Error(`samples answered ${status}: ${new TextDecoder().decode(bytes).slice(0, 300)}`)
    return (performance.now() - started) / 1000
  }
  for (const flag of [false, true]) { await post(arrow, true, flag); await post(flag ? jsonOn : json, false, flag) }
  const rows: Array<Row & { form: string }> = []
  for (const form of ['Arrow', 'JSON'] as const) {
    // samples per second: the inverse of one request's seconds
    const pair = await alternate(async (flag) =>
      POINTS / await post(form === 'Arrow' ? arrow : flag ? jsonOn : json, form === 'Arrow', flag))
    rows.push({ form, off: pair.off, on: pair.on, ratio: median(pair.ratios) })
  }
  return rows
}

// ---- the unit through the stand-in ----

/** The grib-filter query of before the surface layer: the same, less `var_PRES` and the heights above ground. */
const queryBefore = (q: string): string =>
  q.split('&').filter((p) => p !== 'var_PRES=on' && !/^lev_\d+_m_above_ground=on$/.test(p)).join('&')

/** The `.idx` records of before the surface layer: isobaric levels and HGT at the surface. */
const recordsBefore = (picked: IdxEntry[]): IdxEntry[] => picked.filter((e) => / mb$/.test(e.level) || e.level === 'surface')

interface Fetched { bytes: number, ms: number }
interface UnitRow { adapter: string, recordsOff: number, recordsOn: number, bytesOff: number, bytesOn: number,
  msOff: number, msOn: number }

async function unitCosts (): Promise<UnitRow[]> {
  const tree = await buildSampleTree()
  const up = await startUpstream({ root: tree.root })
  try {
    const key = tree.keys.find((k) => k.includes('gfs.20200804/12/')) ?? tree.keys[0]
    const rs = parseBucketKey(key)
    if (rs === null) throw new Error(`not a bucket key: ${key}`)
    const get = async (path: string, range?: string): Promise<Fetched> => {
      const started = performance.now()
      const res = await fetch(`${up.url}${path}`, range === undefined ? {} : { headers: { range } })
      const body = new Uint8Array(await res.arrayBuffer())
      if (res.status !== 200 && res.status !== 206) throw new Error(`stand-in answered ${res.status} for ${path}`)
      return { bytes: body.byteLength, ms: performance.now() - started }
    }
    // a 1° tile at Warsaw, as the filter adapter asks (its tile of the point's grid index)
    const tile = tileOf(Math.round(21 / 0.25), Math.round((52.25 + 90) / 0.25), 4)
    const query = filterQuery(rs, tile)
    const filterRuns = { off: [] as Fetched[], on: [] as Fetched[] }
    const idxText = await (await fetch(`${up.url}/${key}.idx`)).text()
    const picked = selectIdx(parseIdx(idxText))
    const before = recordsBefore(picked)
    // as the bucket adapter asks: the needed ranges bridged over small gaps, one request per span
    const spansOf = async (entries: IdxEntry[]): Promise<Fetched> => {
      let bytes = 0
      const started = performance.now()
      for (const span of bridge(coalesce(entries), MAX_RANGE_GAP)) {
        bytes += (await get(`/${key}`, `bytes=${span.range.start}-${span.range.end ?? ''}`)).bytes
      }
      return { bytes, ms: performance.now() - started }
    }
    const bucketRuns = { off: [] as Fetched[], on: [] as Fetched[] }
    for (let k = 0; k < 5 * pairs; k++) {
      filterRuns.off.push(await get(`/cgi-bin/filter_gfs_0p25.pl?${queryBefore(query)}`))
      filterRuns.on.push(await get(`/cgi-bin/filter_gfs_0p25.pl?${query}`))
      bucketRuns.off.push(await spansOf(before))
      bucketRuns.on.push(await spansOf(picked))
    }
    const filterFields = async (q: string): Promise<number> => {
      const res = await fetch(`${up.url}/cgi-bin/filter_gfs_0p25.pl?${q}`)
      return new Set(scanMessages(new Uint8Array(await res.arrayBuffer())).map((f) => f.message)).size
    }
    return [
      { adapter: 'grib filter, 1° tile', recordsOff: await filterFields(queryBefore(query)),
        recordsOn: await filterFields(query), bytesOff: filterRuns.off[0].bytes, bytesOn: filterRuns.on[0].bytes,
        msOff: median(filterRuns.off.map((r) => r.ms)), msOn: median(filterRuns.on.map((r) => r.ms)) },
      { adapter: 'bucket .idx ranges, whole grid', recordsOff: before.length, recordsOn: picked.length,
        bytesOff: bucketRuns.off[0].bytes, bytesOn: bucketRuns.on[0].bytes,
        msOff: median(bucketRuns.off.map((r) => r.ms)), msOn: median(bucketRuns.on.map((r) => r.ms)) }
    ]
  } finally {
    await up.close()
    await tree.remove()
  }
}

const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_INTERPOLATE: 'main', ALOFT_WORKERS: '2',
  ALOFT_SAMPLES_MAX_POINTS: String(POINTS) })
let profiles, samples
try {
  profiles = await profileRates(server)
  samples = await samplesTimes(server)
} finally {
  await server.stop()
}
const units = await unitCosts()
await rm(dir, { recursive: true, force: true })

const ratio = (x: number): string => Number.isFinite(x) ? x.toFixed(2) : ''
console.log(`cached profile req/s, ${seconds} s closed loop × ${pairs} alternating pairs (median)`)
console.log(table(['mix', 'req/s without', 'req/s with', 'with ÷ without', 'CPU µs/req without', 'CPU µs/req with',
  'CPU without ÷ with'], profiles.map((r) => [
  r.mix === 'near' ? 'near ground (10–300 m AGL, flag only)' : r.mix, Number.isFinite(r.off) ? int(r.off) : '',
  int(r.on), ratio(r.ratio), Number.isFinite(r.cpuOff) ? int(r.cpuOff) : '', int(r.cpuOn), ratio(r.cpuOff / r.cpuOn)])))
console.log(`\nsamples per second, ${POINTS} points, one request at a time × ${pairs} alternating pairs (median)`)
console.log(table(['form', 'without', 'with surface_layer', 'with ÷ without'],
  samples.map((r) => [r.form, int(r.off), int(r.on), ratio(r.ratio)])))
console.log('\nthe unit through the local stand-in (median of the fetches)')
console.log(table(['adapter', 'records before', 'records with', 'bytes before', 'bytes with', 'ms before', 'ms with'],
  units.map((r) => [r.adapter, String(r.recordsOff), String(r.recordsOn), int(r.bytesOff), int(r.bytesOn),
    ms(r.msOff), ms(r.msOn)])))
console.log(`\nwrote ${writeResult('surface-layer', { seconds, pairs, points: POINTS, profiles, samples, units })}`)
