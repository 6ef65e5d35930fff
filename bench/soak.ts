// bench/soak: a long open-loop run at 80 % of the measured maximum with a mix of cached, cold and
// invalid requests; errors by status, p99 per window, RSS of the server at start and end.
//   npx tsc -p tsconfig.json && node dist/bench/soak.js [--seconds 60] [--warmup 10]
// Cold stays cold for the whole run: the decoded-unit budget (ALOFT_CACHE_MB=3) holds two of the
// sample's ~1.3 MB units; cached requests keep one unit (2020-08-04 18Z) the most recent, and cold
// requests go to the other 8 units at many grid points, so each one evicts the previous cold unit
// and is decoded again from the raw disk cache (no upstream: mirror:<data/sample>).
// The maximum is taken first from a short closed-loop run of the same mix (bench/loadgen).
// Writes bench/results/soak.json.
import {
  int, loadgen, ms, numberArg, postProfile, profileBody, SAMPLE, serverMemory, sleep, startServer, table, writeResult,
  type ServerChild
} from './lib/index.js'
import type { LoadRequest } from './lib/load-spec.js'

const seconds = numberArg('seconds', 60)
const warmupSeconds = numberArg('warmup', 10)
const probeSeconds = 5
const CACHE_MB = '3'
const CACHED_TIME = '2020-08-04T18:00:00Z'
const COLD_TIMES = ['2020-07-21T12:00:00Z', '2020-07-22T06:00:00Z', '2020-07-28T12:00:00Z', '2020-08-04T12:00:00Z',
  '2020-08-05T00:00:00Z', '2020-08-15T12:00:00Z', '2020-08-15T18:00:00Z', '2020-08-29T06:00:00Z']
/** Expected status per kind; anything else is counted as unexpected (5xx and socket errors as errors). */
const EXPECTED: Record<string, string> = { cached: '200', cold: '200', invalid: '400' }

function mix (server: ServerChild): LoadRequest[] {
  const url = `${server.info.aloftUrl}/v1/atmosphere/profile`
  const headers = { 'content-type': 'application/json', 'x-api-key': server.info.key }
  const out: LoadRequest[] = []
  // cached: 24 grid points of one unit, 94.5 % of requests
  for (let k = 0; k < 24; k++) {
    out.push({
      kind: 'cached',
      method: 'POST',
      url,
      headers,
      body: profileBody(
        48.5 + (k % 6) * 1.3,
        13.5 + Math.floor(k / 6) * 2.9,
        CACHED_TIME,
        [300, 500 + k * 10, 3000, 9000]
      ),
      weight: 94.5 / 24
    })
  }
  // cold: the other 8 units at 5 points each, 0.5 %
  for (const [t, time] of COLD_TIMES.entries()) {
    for (let k = 0; k < 5; k++) {
      out.push({
        kind: 'cold',
        method: 'POST',
        url,
        headers,
        body: profileBody(49 + k * 1.5, 14 + t * 1.3, time),
        weight: 0.5 / 40
      })
    }
  }
  // invalid: 5 %, four kinds of bad body
  const bad = [
    JSON.stringify({ latitude: 200, longitude: 21, time: CACHED_TIME, altitudes_m: [100], altitude_reference: 'agl' }),
    JSON.stringify({ latitude: 52, longitude: 21, time: CACHED_TIME, altitudes_m: [], altitude_reference: 'agl' }),
    JSON.stringify({ latitude: 52, longitude: 21, altitudes_m: [100], altitude_reference: 'agl' }),
    '{"latitude": 52, "longitude":'
  ]
  for (const body of bad) out.push({ kind: 'invalid', method: 'POST', url, headers, body, weight: 5 / bad.length })
  return out
}

const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_CACHE_MB: CACHE_MB })
try {
  // every unit once (fills the raw disk cache: later cold requests decode from disk, not upstream)
  for (const time of [...COLD_TIMES, CACHED_TIME]) {
    const r = await postProfile(server.info, profileBody(52.23, 21.01, time))
    if (r.status !== 200) throw new Error(`warm-up ${time} answered ${r.status}: ${JSON.stringify(r.json)}`)
  }
  const requests = mix(server)
  // every valid request answers 200 before the clock starts (a bad point would read as an error)
  for (const r of requests.filter((x) => x.kind !== 'invalid')) {
    const a = await postProfile(server.info, r.body!)
    if (a.status !== 200) throw new Error(`${r.kind} request ${r.body} answered ${a.status}: ${JSON.stringify(a.json)}`)
  }
  const probe = await loadgen({ mode: 'closed', connections: 32, seconds: probeSeconds, warmupSeconds: 1, requests })
  const rate = Math.max(1, Math.round(0.8 * probe.rps))

  const memory: Array<{
    t: number, rss: number, heapUsed: number, external: number, arrayBuffers: number, fds: number | null
  }> = []
  const startedAt = performance.now()
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const m = await serverMemory(server).catch(() => null)
      if (m !== null) {
        memory.push({
          t: (performance.now() - startedAt) / 1000 - warmupSeconds,
          rss: m.rss,
          heapUsed: m.heapUsed,
          external: m.external,
          arrayBuffers: m.arrayBuffers,
          fds: m.fds
        })
      }
      await sleep(1000)
    }
  })()
  const soak = await loadgen({
    mode: 'open', rate, connections: 64, seconds, warmupSeconds, windowSeconds: 10, requests
  })
  sampling = false
  await sampler
  const metrics = await (await fetch(`${server.info.aloftUrl}/metrics`)).text()
  const cacheLine = (name: string): string => metrics.split('\n').filter((l) => l.startsWith(name)).join('; ')

  // RSS moves by tens of MiB as decoded units come and go: compare medians of the first and the
  // last 10 s of the measured period, not two single samples
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b)
    return s[Math.floor(s.length / 2)]
  }
  // Windows of a tenth of the run (at least 10 s): long enough that one GC's swing does not decide
  const span = Math.max(10, seconds / 10)
  const first = memory.filter((m) => m.t >= 0 && m.t < span).map((m) => m.rss)
  const last = memory.filter((m) => m.t >= seconds - span).map((m) => m.rss)
  const atStart = { rss: median(first.length > 0 ? first : [memory[0].rss]) }
  const atEnd = { rss: median(last.length > 0 ? last : [memory[memory.length - 1].rss]) }
  const unexpected = Object.entries(soak.outcomes).filter(([k]) => {
    const [kind, status] = k.split(' ')
    return EXPECTED[kind] !== status
  })
  const errors = unexpected.filter(([k]) => / (5\d\d|error:)/.test(k)).reduce((n, [, v]) => n + v, 0)

  console.log(`soak: ${seconds} s open loop at 80 % of the mix's closed-loop maximum ` +
    `(${int(probe.rps)} req/s → ${rate} req/s), after ${warmupSeconds} s warm-up at that rate`)
  console.log('mix: 94.5 % cached (24 points of one unit), 0.5 % cold (8 other units, evicted and decoded again ' +
    'from the raw disk cache: ALOFT_CACHE_MB=3 holds two units), 5 % invalid bodies (→ 400)')
  console.log(table(
    ['outcome (kind status)', 'count', 'expected'],
    Object.entries(soak.outcomes).sort().map(([k, v]) => [
      k,
      String(v),
      EXPECTED[k.split(' ')[0]] === k.split(' ')[1] ? 'yes' : 'NO'
    ])
  ))
  const unexpectedCount = unexpected.reduce((n, [, v]) => n + v, 0)
  console.log(`\nunexpected answers: ${unexpectedCount} (of which 5xx or socket errors: ${errors}); ` +
    `unanswered at the end: ${soak.unfinished}`)
  console.log('\nover time (latency from the scheduled start, all kinds)')
  console.log(table(
    ['window s', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors'],
    soak.windows.map((w) => [
      `${w.startS}–${w.startS + (soak.windows.length > 0 ? 10 : 0)}`,
      int(w.rps),
      ms(w.p50),
      ms(w.p99),
      ms(w.max),
      String(w.errors)
    ])
  ))
  console.log('\nby kind')
  console.log(table(
    ['kind', 'count', 'p50 ms', 'p99 ms', 'max ms'],
    Object.entries(soak.byKind).map(([k, s]) => [k, String(s.count), ms(s.p50), ms(s.p99), ms(s.max)])
  ))
  const change = (atEnd.rss - atStart.rss) / atStart.rss
  const startMib = (atStart.rss / 2 ** 20).toFixed(1)
  const endMib = (atEnd.rss / 2 ** 20).toFixed(1)
  const maxMib = (Math.max(...memory.map((m) => m.rss)) / 2 ** 20).toFixed(1)
  // a leak shows as a steady slope; least squares over every sample after the first window
  const settled = memory.filter((m) => m.t >= span)
  const meanT = settled.reduce((n, m) => n + m.t, 0) / settled.length
  const meanR = settled.reduce((n, m) => n + m.rss, 0) / settled.length
  const slope = settled.reduce((n, m) => n + (m.t - meanT) * (m.rss - meanR), 0) /
    settled.reduce((n, m) => n + (m.t - meanT) ** 2, 0) // bytes per second
  const perMinute = (slope * 60 / 2 ** 20).toFixed(2)
  console.log(`\nserver RSS (median of 1 s samples): ${startMib} MiB over the first ${span} s after warm-up, ` +
    `${endMib} MiB over the last ${span} s (${(100 * change).toFixed(1)} %), max ${maxMib} MiB; ` +
    `trend after the first window ${perMinute} MiB/min`)
  const mib = (xs: number[]): string => (median(xs) / 2 ** 20).toFixed(1)
  const part = (from: number, to: number): typeof memory => memory.filter((m) => m.t >= from && m.t < to)
  const [early, late] = [part(0, span), part(seconds - span, Infinity)]
  console.log(`  of which (medians, first → last ${span} s): ` +
    `JS heap ${mib(early.map((m) => m.heapUsed))} → ${mib(late.map((m) => m.heapUsed))} MiB, ` +
    `external ${mib(early.map((m) => m.external))} → ${mib(late.map((m) => m.external))} MiB ` +
    `(array buffers ${mib(early.map((m) => m.arrayBuffers))} → ${mib(late.map((m) => m.arrayBuffers))})`)
  const fds = (xs: typeof memory): string => xs.length === 0 ||
    xs[0].fds === null ? 'n/a' : String(median(xs.map((m) => m.fds!)))
  console.log(`open file descriptors (medians, first → last ${span} s): ${fds(early)} → ${fds(late)}`)
  console.log(`decoded cache: ${cacheLine('aloft_decoded_cache_requests_total')}`)
  const path = writeResult('soak', {
    seconds,
    warmup_seconds: warmupSeconds,
    cache_mb: Number(CACHE_MB),
    probe: { rps: probe.rps, latencyMs: probe.latencyMs, outcomes: probe.outcomes },
    rate,
    soak,
    unexpected: Object.fromEntries(unexpected),
    errors,
    rss: { window_seconds: span, start: atStart.rss, end: atEnd.rss, change, bytes_per_minute: slope * 60,
      samples: memory },
    fds: { start: fds(early), end: fds(late) },
    decoded_cache: cacheLine('aloft_decoded_cache_requests_total')
  })
  console.log(`\n→ ${path}`)
} finally {
  await server.stop()
}
