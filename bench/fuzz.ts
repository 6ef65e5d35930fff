// bench/fuzz: hostile bodies against the built server in a process of its own (its heap capped).
// Arrow streams with every count, length and offset of every message's metadata mutated (each
// 4- and 8-byte word set to values that break bounds), cut short at random places and with flipped
// body bytes; JSON bodies with huge arrays, thousands of failures, unknown keys, deep and wide
// nesting and wrong types, against the samples, profile and trajectory routes. Holds: never a
// 5xx, never a dead process, each answer within a second (scaled by a yardstick on a slower or busy
// machine), resident memory bounded.
//   npx tsc -p tsconfig.json && node dist/bench/fuzz.js [--cases N] [--seed S] [--soak-seconds S] [--bodies-only]
// Prints a table and writes bench/results/fuzz.json; then, unless --bodies-only, the public-mode
// soak (bench/public-soak.ts, 60 s). `runFuzz({ cases: 400 })` is run by the test suite
// (test/security/fuzz.test.ts), and a short soak (test/security/public-soak.test.ts).
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import {
  Dictionary, Int32, Table, Timestamp, TimeUnit, Utf8, makeVector, tableToIPC, vectorFromArray
} from 'apache-arrow'
import { random } from './lib/random.js'
import { SAMPLE, int, medianMs, ms, percentile, serverMemory, startServer, table, writeResult } from './lib/index.js'

export interface FuzzOptions {
  /** Cases in all (Arrow and JSON); default every Arrow mutation and 400 JSON bodies. */
  cases?: number
  seed?: number
  /** An answer slower than this fails, on a machine as quick as the project's idle one (YARDSTICK_IDLE_MS). */
  maxMs?: number
  /** Resident memory may grow by at most this over the run (bytes). */
  maxRssGrowth?: number
}

export interface FuzzReport {
  cases: number
  byStatus: Record<string, number>
  /** Answer times (ms). */
  p50: number
  p99: number
  max: number
  rssBefore: number
  rssMax: number
  rssAfter: number
  /** The yardstick (median ms of an ordinary Arrow samples request) and the bound it gave. */
  yardstickMs: number
  boundMs: number
  failures: string[]
  ok: boolean
}

interface Case { name: string, path: string, contentType: string, body: Uint8Array }

const SAMPLES = '/v1/atmosphere/samples?altitude_reference=agl'
// The yardstick's median on the project's machine idle (2 cores, 2026-12-08): where it runs slower (a busy
// or slower machine) every answer may take as many times longer than `maxMs`
const YARDSTICK_IDLE_MS = 5
const ARROW = 'application/vnd.apache.arrow.stream'
const enc = new TextEncoder()

/** The valid streams every mutation starts from: one batch, three batches, nulls, extra and dictionary columns. */
function baseStreams (): Array<[string, Uint8Array]> {
  const start = Date.parse('2020-08-04T12:00:00Z')
  const points = (n: number, from = 0): Record<string, unknown> => ({
    latitude: makeVector(Float64Array.from({ length: n }, (_, k) => 50 + (from + k) * 0.1)),
    longitude: makeVector(Float64Array.from({ length: n }, (_, k) => 16 + (from + k) * 0.1)),
    altitude_m: makeVector(Float64Array.from({ length: n }, (_, k) => 1000 + 100 * (from + k))),
    time: vectorFromArray(Array.from({ length: n }, (_, k) => new Date(start + 600_000 * (from + k))),
      new Timestamp(TimeUnit.MILLISECOND, 'UTC'))
  })
  const one = new Table(points(3) as never)
  const three = new Table(points(2) as never).concat(new Table(points(2, 2) as never), new Table(points(2, 4) as never))
  const extra = new Table({
    ...points(3),
    station: vectorFromArray(['a', 'bb', 'ccc'], new Utf8()),
    ground_elevation_m_msl: vectorFromArray([100, null, 300])
  } as never)
  const dictionary = new Table({
    ...points(3), tag: vectorFromArray(['x', 'y', 'x'], new Dictionary(new Utf8(), new Int32()))
  } as never)
  return [['one batch', tableToIPC(one, 'stream')], ['three batches', tableToIPC(three, 'stream')],
    ['extra columns and nulls', tableToIPC(extra, 'stream')], ['a dictionary column', tableToIPC(dictionary, 'stream')]]
}

/** Each message's metadata [start, end) in a well-formed stream. */
function metadataRanges (stream: Uint8Array): Array<[number, number]> {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength)
  const out: Array<[number, number]> = []
  let at = 0
  while (at + 8 <= stream.length && view.getUint32(at, true) === 0xffffffff) {
    const length = view.getUint32(at + 4, true)
    if (length === 0) break
    const start = at + 8
    const root = start + view.getUint32(start, true)
    const vtable = root - view.getInt32(root, true)
    // the body length: Message field 3 (an int64), 0 when absent
    const slot = vtable + 4 + 2 * 3
    const inVtable = slot + 2 <= start + length && slot < vtable + view.getUint16(vtable, true)
    const offset = inVtable ? view.getUint16(slot, true) : 0
    const body = offset === 0 ? 0 : Number(view.getBigInt64(root + offset, true))
    out.push([at, start + length])
    at = start + length + body
  }
  return out
}

const U32_VALUES = [0, 1, 7, 0x7fffffff, 0x80000000, 0xffffffff, 2_000_000_000, 65_536]
const I64_VALUES = [0n, 1n, -1n, 2n ** 31n, 2n ** 53n - 1n, 2n ** 62n, 2_000_000_000n]

/** Every mutation of every base stream, in a fixed order. */
export function arrowCases (): Case[] {
  const cases: Case[] = []
  for (const [name, stream] of baseStreams()) {
    const ranges = metadataRanges(stream)
    ranges.forEach(([from, to], m) => {
      for (let at = from; at + 4 <= to; at += 4) {
        for (const v of U32_VALUES) {
          const body = stream.slice()
          new DataView(body.buffer).setUint32(at, v, true)
          cases.push({ name: `${name}, message ${m}: u32 at ${at} = ${v}`, path: SAMPLES, contentType: ARROW, body })
        }
      }
      for (let at = from + (from % 8 === 0 ? 0 : 8 - (from % 8)); at + 8 <= to; at += 8) {
        for (const v of I64_VALUES) {
          const body = stream.slice()
          new DataView(body.buffer).setBigInt64(at, v, true)
          cases.push({ name: `${name}, message ${m}: i64 at ${at} = ${v}`, path: SAMPLES, contentType: ARROW, body })
        }
      }
    })
    for (let cut = 1; cut < stream.length; cut += Math.max(1, Math.floor(stream.length / 40))) {
      cases.push({ name: `${name}: cut at ${cut}`, path: SAMPLES, contentType: ARROW, body: stream.slice(0, cut) })
    }
  }
  return cases
}

/** Hostile JSON bodies for the JSON routes, drawn from `next` (`short`: at most 100 001 items). */
function jsonCase (next: () => number, k: number, short: boolean): Case {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]
  const routes = ['/v1/atmosphere/samples', '/v1/atmosphere/profile', '/v1/atmosphere/trajectory'] as const
  const path = routes[k % routes.length]
  const n = pick(short ? [1, 10, 1000, 100_001] : [1, 10, 1000, 100_001, 400_000])
  const item = (): unknown =>
    pick<unknown>([91, -1e308, 'x', null, true, {}, [], '2020-08-04T12:00:00Z', 1.5, '\u0000'])
  const array = (): unknown[] => Array.from({ length: n }, () => item())
  const kind = pick(['huge arrays', 'many errors', 'unknown keys', 'deep', 'wide', 'wrong types', 'big numbers'])
  let text: string
  switch (kind) {
    case 'huge arrays':
      text = JSON.stringify({ latitude: Array(n).fill(50), longitude: Array(n).fill(16), altitude_m: Array(n).fill(100),
        altitudes_m: Array(Math.min(n, 5000)).fill(100), time: '2020-08-04T12:00:00Z', altitude_reference: 'agl' })
      break
    case 'many errors':
      text = JSON.stringify({ latitude: array(), longitude: array(), altitude_m: array(), altitudes_m: array(),
        time: array(), altitude_reference: item(), launch_latitude: item(), ascent_rate: item() })
      break
    case 'unknown keys': {
      const body: Record<string, unknown> = { latitude: [50], longitude: [16], altitude_m: [1], time: 'x' }
      for (let j = 0; j < Math.min(n, 200_000); j++) body[`k${j}`] = item()
      text = JSON.stringify(body)
      break
    }
    case 'deep': {
      const depth = pick([31, 32, 33, 1000, 100_000])
      text = `{"latitude":${'['.repeat(depth)}${']'.repeat(depth)}}`
      break
    }
    case 'wide':
      text = JSON.stringify(Object.fromEntries(Array.from({ length: Math.min(n, 20_000) }, (_, j) => [`w${j}`,
        { a: [1, 2, { b: 'c' }] }])))
      break
    case 'wrong types':
      text = JSON.stringify(pick<unknown>([[], 'body', 42, null, { latitude: { a: 1 } },
        { launch_latitude: '52', launch_longitude: [21], launch_datetime: 5, ascent_rate: -1 }]))
      break
    default:
      text = `{"latitude":[${'9'.repeat(400)}],"launch_latitude":1e999,"altitudes_m":[-0,1e-400]}`
  }
  return { name: `${kind} (${n}) → ${path}`, path, contentType: 'application/json', body: enc.encode(text) }
}

/**
 * One request on a connection of its own, read to its close: the status, or 0 when none arrived.
 * A raw socket, because a refusal may come (413, then the connection closed) while the client is
 * still sending, which fetch reports as its own failure rather than the answer it got.
 */
async function post (url: string, key: string, c: Case, timeoutMs: number): Promise<number> {
  const { hostname, port } = new URL(url)
  return await new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) })
    let head = ''
    const timer = setTimeout(() => socket.destroy(), timeoutMs)
    socket.on('connect', () => {
      socket.write(`POST ${c.path} HTTP/1.1\r\nHost: aloft\r\nX-API-Key: ${key}\r\nContent-Type: ${c.contentType}\r\n` +
        `Content-Length: ${c.body.length}\r\nConnection: close\r\n\r\n`)
      // not ended: a half-closed request may be dropped by Node's server (httpAllowHalfOpen off)
      socket.write(c.body)
    })
    socket.on('data', (d: Buffer) => { if (head.length < 64) head += d.toString('latin1', 0, 64) })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1] ?? 0))
    })
  })
}

export async function runFuzz (options: FuzzOptions = {}): Promise<FuzzReport> {
  const maxMs = options.maxMs ?? 1000
  const next = random(options.seed ?? 31)
  const arrow = arrowCases()
  const jsonCount = options.cases === undefined ? 400 : Math.max(20, Math.floor(options.cases / 4))
  let chosen = arrow
  if (options.cases !== undefined && options.cases - jsonCount < arrow.length) {
    // an even spread over every message and word: a short run still reaches each kind of field
    const want = Math.max(1, options.cases - jsonCount)
    chosen = Array.from({ length: want }, (_, k) => arrow[Math.floor((k * arrow.length) / want)])
  }
  const short = options.cases !== undefined
  const cases = [...chosen, ...Array.from({ length: jsonCount }, (_, k) => jsonCase(next, k, short))]
  const server = await startServer({
    ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_WORKERS: '1', ALOFT_LOG_LEVEL: 'error'
  }, ['--max-old-space-size=768'])
  const failures: string[] = []
  const byStatus: Record<string, number> = {}
  const times: number[] = []
  let rssMax = 0
  let yardstickMs = 0
  let boundMs = maxMs
  try {
    const { aloftUrl, key } = server.info
    // the warm-up fetches and decodes its units: its time is the data path's, not the fuzz's
    const send = async (c: Case, timed = true): Promise<void> => {
      const started = performance.now()
      const status = await post(aloftUrl, key, c, 30_000)
      const took = performance.now() - started
      if (status === 0) failures.push(`${c.name}: no answer`)
      times.push(took)
      byStatus[status] = (byStatus[status] ?? 0) + 1
      if (status >= 500) failures.push(`${c.name}: answered ${status}`)
      if (timed && took > boundMs) {
        failures.push(`${c.name}: answered in ${took.toFixed(0)} ms (bound ${boundMs.toFixed(0)} ms, yardstick ` +
          `${yardstickMs.toFixed(1)} ms)`)
      }
    }
    // warm: the data decoded once, so the memory measured after is the fuzz's own
    const [[, ordinary]] = baseStreams()
    const warm: Case = { name: 'warm-up', path: SAMPLES, contentType: ARROW, body: ordinary }
    await send(warm, false)
    // the yardstick: that ordinary request, timed beside the fuzz (the median of five), scales the bound
    yardstickMs = await medianMs(() => post(aloftUrl, key, warm, 30_000))
    boundMs = maxMs * Math.max(1, yardstickMs / YARDSTICK_IDLE_MS)
    const rssBefore = (await serverMemory(server)).rss
    for (let k = 0; k < cases.length; k++) {
      await send(cases[k])
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        failures.push(`the server died after ${cases[k].name}`)
        break
      }
      if (k % 50 === 0) rssMax = Math.max(rssMax, (await serverMemory(server)).rss)
    }
    const health = await fetch(`${aloftUrl}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => null)
    if (health?.status !== 200) failures.push('/healthz does not answer after the run')
    const rssAfter = (await serverMemory(server)).rss
    rssMax = Math.max(rssMax, rssAfter)
    const maxGrowth = options.maxRssGrowth ?? 400 * 1024 * 1024
    if (rssMax - rssBefore > maxGrowth) {
      failures.push(`resident memory grew ${((rssMax - rssBefore) / 1048576).toFixed(0)} MB`)
    }
    times.sort((a, b) => a - b)
    return {
      cases: cases.length, byStatus, p50: percentile(times, 50), p99: percentile(times, 99),
      max: times[times.length - 1],
      rssBefore, rssMax, rssAfter, yardstickMs, boundMs, failures, ok: failures.length === 0
    }
  } finally {
    await server.stop()
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name: string): number | undefined => {
    const k = process.argv.indexOf(name)
    return k < 0 ? undefined : Number(process.argv[k + 1])
  }
  // then strangers against the public service (bench/public-soak.ts), unless --bodies-only
  const soak = process.argv.includes('--bodies-only') ? undefined : await import('./public-soak.js')
  const report = await runFuzz({ cases: arg('--cases'), seed: arg('--seed') })
  const mb = (x: number): string => (x / 1048576).toFixed(0)
  console.log(`fuzz: ${report.cases} hostile bodies against the built server (heap capped at 768 MB)`)
  console.log(table(['answers by status', 'p50 ms', 'p99 ms', 'max ms', 'RSS MB before / max / after'], [[
    Object.entries(report.byStatus).map(([s, n]) => `${s}: ${int(n)}`).join(', '), ms(report.p50, 1), ms(report.p99, 1),
    ms(report.max, 1), `${mb(report.rssBefore)} / ${mb(report.rssMax)} / ${mb(report.rssAfter)}`
  ]]))
  console.log(report.ok ? 'result: OK' : `result: FAILED\n  ${report.failures.slice(0, 20).join('\n  ')}`)
  console.log(`\n→ ${writeResult('fuzz', report)}`)
  process.exitCode = report.ok ? 0 : 1
  if (soak !== undefined) {
    const soaked = await soak.runPublicSoak({ seconds: arg('--soak-seconds') })
    console.log(`\n${soak.formatSoak(soaked)}\n\n→ ${writeResult('public-soak', soaked)}`)
    if (!soaked.ok) process.exitCode = 1
  }
}
