// bench/public-soak: strangers against the public service (docs/DESIGN.md §10). The built server in
// a process of its own, public mode on, its defaults as an operator leaves them. Eight loopback
// addresses with 128 keep-alive connections each send mixed Tawhiri-path requests without pause —
// flights (JSON, CSV, KML, reverse), the dataset check, the terrain, malformed queries, keys in odd
// paths — and a share of them leave 0–50 ms after asking. Meanwhile a key holder asks profiles
// and flights, an honest stranger the dataset check, a balancer /readyz. Holds: the key holder
// and the honest stranger are served, /readyz stays 200, nothing answers 5xx but Tawhiri's 503
// with Retry-After (never a bare problem a page cannot read), memory comes back.
//   node dist/bench/public-soak.js [--seconds 60] [--addresses 8] [--connections 128]
// Part of `npm run fuzz`; prints a table and writes bench/results/public-soak.json.
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { random } from './lib/random.js'
import { int, ms, numberArg, percentile, SAMPLE, serverCpuUs, serverMemory, startServer, table,
  writeResult } from './lib/index.js'

export interface SoakOptions {
  seconds?: number
  addresses?: number
  connections?: number
  seed?: number
  /** ALOFT_* settings over public mode's defaults (the short run's smaller burst). */
  env?: Record<string, string>
}

interface Tally { requests: number, ok: number, byStatus: Record<string, number>, ms: number[] }

export interface SoakReport {
  seconds: number
  addresses: number
  connections: number
  strangers: Omit<Tally, 'ms'> & { left: number }
  keyHolder: { requests: number, ok: number, p50Ms: number, p99Ms: number }
  honest: { requests: number, ok: number }
  readyz: { requests: number, ok: number }
  /** 5xx answers, by status and Tawhiri error type; those not a 503 with Retry-After in Tawhiri's shape. */
  serverErrors: Record<string, number>
  unreadable: number
  rssMb: { before: number, max: number, after: number }
  serverCpuSeconds: number
  failures: string[]
  ok: boolean
}

const HOURS = ['12', '13', '14', '15', '16', '17', '18']
const flight = (next: () => number, extra = ''): string => '/tawhiri?launch_latitude=' +
  (50 + next() * 4).toFixed(3) + '&launch_longitude=' + (16 + next() * 6).toFixed(3) + '&launch_datetime=2020-08-04T' +
  HOURS[Math.floor(next() * HOURS.length)] + ':00:00Z&ascent_rate=5&burst_altitude=30000&descent_rate=5' + extra

/** A stranger's next request: mostly flights, the rest what a page or a prober sends. */
function strangerPath (next: () => number): string {
  const r = next()
  if (r < 0.40) return flight(next)
  if (r < 0.50) return flight(next, '&format=csv')
  if (r < 0.55) return flight(next, '&format=kml')
  if (r < 0.60) return '/tawhiri?profile=reverse_profile&launch_latitude=52.2&launch_longitude=21.0&' +
    'launch_altitude=12000&launch_datetime=2020-08-04T15:00:00Z&ascent_rate=5'
  if (r < 0.75) return '/api/datasetcheck'
  if (r < 0.85) {
    return `/api/ruaumoko/?latitude=${(49 + next() * 6).toFixed(2)}&longitude=${(14 + next() * 9).toFixed(2)}`
  }
  if (r < 0.92) return '/tawhiri?launch_latitude=abc&launch_datetime=yesterday'
  return `//k/aloft_${'x'.repeat(43)}/tawhiri?launch_latitude=1`
}

function get (agent: Agent, url: URL, path: string, headers: Record<string, string> = {}):
Promise<{ status: number, retryAfter?: string, body: string, ms: number }> {
  const t0 = performance.now()
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path, agent, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => { if (body.length < 4096) body += d })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body,
        ms: performance.now() - t0 }))
      res.on('error', () => resolve({ status: 0, body, ms: performance.now() - t0 }))
    })
    req.on('error', () => resolve({ status: 0, body: '', ms: performance.now() - t0 }))
    req.end()
  })
}

/** A request sent on a socket of its own, the socket destroyed `afterMs` later, its answer unread. */
async function leave (url: URL, address: string, path: string, afterMs: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const s = connect({ host: url.hostname, port: Number(url.port), localAddress: address }, () => {
      s.write(`GET ${path} HTTP/1.1\r\nHost: aloft\r\n\r\n`)
      setTimeout(() => { s.destroy(); resolve() }, afterMs)
    })
    s.on('error', () => resolve())
  })
}

// Over 80 lines on purpose: the strangers, the key holder, the probes and the memory watch run on one
// clock and fill one set of tallies, read together at the end; apart, they would pass a dozen around.
export async function runPublicSoak (options: SoakOptions = {}): Promise<SoakReport> {
  const seconds = options.seconds ?? 60
  const addresses = options.addresses ?? 8
  const connections = options.connections ?? 128
  const next = random(options.seed ?? 41)
  const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_WORKERS: '2', ALOFT_LOG_LEVEL: 'error',
    ALOFT_PUBLIC_TAWHIRI: 'on', ...options.env }, ['--max-old-space-size=768'])
  const url = new URL(server.info.aloftUrl)
  const key = server.info.key
  const failures: string[] = []
  const strangers: SoakReport['strangers'] = { requests: 0, ok: 0, byStatus: {}, left: 0 }
  const serverErrors: Record<string, number> = {}
  let unreadable = 0
  const keyHolder: Tally = { requests: 0, ok: 0, byStatus: {}, ms: [] }
  const honest = { requests: 0, ok: 0 }
  const readyz = { requests: 0, ok: 0 }
  try {
    // warm: the data decoded once, so what is measured after is the strangers' doing
    await get(new Agent(), url, flight(next), { 'x-api-key': key })
    const rssBefore = (await serverMemory(server)).rss
    const cpuBefore = await serverCpuUs(server)
    let rssMax = rssBefore
    const until = Date.now() + seconds * 1000
    const running = (): boolean => Date.now() < until
    const note = (a: { status: number, retryAfter?: string, body: string }): void => {
      strangers.requests++
      strangers.byStatus[a.status] = (strangers.byStatus[a.status] ?? 0) + 1
      if (a.status === 200) strangers.ok++
      if (a.status < 500) return
      const type = /"type":"(\w+)"/.exec(a.body)?.[1] ?? 'not Tawhiri\'s shape'
      serverErrors[`${a.status} ${type}`] = (serverErrors[`${a.status} ${type}`] ?? 0) + 1
      if (a.status !== 503 || type !== 'ServiceUnavailableException' || a.retryAfter === undefined) unreadable++
    }
    const attackers = Array.from({ length: addresses }, (_, k) => {
      const address = `127.0.30.${k + 1}`
      const agent = new Agent({ keepAlive: true, maxSockets: connections, localAddress: address })
      return Array.from({ length: connections }, async () => {
        while (running()) {
          const path = strangerPath(next)
          // one in five leaves 0–50 ms after asking (a closed tab, a killed script)
          if (next() < 0.2) {
            strangers.left++
            await leave(url, address, path, Math.floor(next() * 50))
          } else {
            note(await get(agent, url, path))
          }
        }
        agent.destroy()
      })
    }).flat()
    const holderAgent = new Agent({ keepAlive: true, maxSockets: 4, localAddress: '127.0.31.1' })
    const holder = Array.from({ length: 4 }, async () => {
      while (running()) {
        const a = next() < 0.5
          ? await get(holderAgent, url, `/k/${key}${flight(next)}`)
          : await get(holderAgent, url, '/v1/atmosphere/usage', { 'x-api-key': key })
        keyHolder.requests++
        keyHolder.ms.push(a.ms)
        if (a.status === 200) keyHolder.ok++
        else keyHolder.byStatus[a.status] = (keyHolder.byStatus[a.status] ?? 0) + 1
        await sleep(50)
      }
    })
    const probes = async (address: string, path: string, tally: { requests: number, ok: number }): Promise<void> => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: address })
      while (running()) {
        tally.requests++
        if ((await get(agent, url, path)).status === 200) tally.ok++
        await sleep(500)
      }
    }
    const memory = (async () => {
      while (running()) {
        rssMax = Math.max(rssMax, (await serverMemory(server)).rss)
        await sleep(1000)
      }
    })()
    await Promise.all([...attackers, ...holder, probes('127.0.32.1', '/api/datasetcheck', honest),
      probes('127.0.0.1', '/readyz', readyz), memory])
    const cpu = (await serverCpuUs(server) - cpuBefore) / 1e6
    await sleep(2000) // what the strangers left behind is dropped or done
    const rssAfter = (await serverMemory(server)).rss
    const sorted = keyHolder.ms.sort((a, b) => a - b)
    const want = (ok: boolean, what: string): void => { if (!ok) failures.push(what) }
    want(keyHolder.ok === keyHolder.requests, `the key holder: ${keyHolder.ok} of ${keyHolder.requests} ok ` +
      `(${JSON.stringify(keyHolder.byStatus)})`)
    want(honest.ok === honest.requests, `the honest stranger: ${honest.ok} of ${honest.requests} ok`)
    want(readyz.ok === readyz.requests, `/readyz: ${readyz.ok} of ${readyz.requests} ok`)
    want(unreadable === 0, `${unreadable} 5xx answers other than Tawhiri's 503 with Retry-After`)
    want(server.child.exitCode === null, 'the server is alive')
    const mb = (x: number): number => Math.round(x / 1048576)
    return {
      seconds, addresses, connections, strangers,
      keyHolder: { requests: keyHolder.requests, ok: keyHolder.ok, p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99) },
      honest, readyz, serverErrors, unreadable,
      rssMb: { before: mb(rssBefore), max: mb(rssMax), after: mb(rssAfter) },
      serverCpuSeconds: cpu, failures, ok: failures.length === 0
    }
  } finally {
    await server.stop()
  }
}

export function formatSoak (r: SoakReport): string {
  const s = r.strangers
  return [
    `public soak: ${r.addresses} addresses × ${r.connections} connections for ${r.seconds} s, public mode defaults`,
    table(['who', 'requests', 'answered 200', 'other answers'], [
      ['strangers', int(s.requests + s.left), int(s.ok), Object.entries(s.byStatus).filter(([k]) => k !== '200')
        .map(([k, n]) => `${k}: ${n}`).join(', ') + `; left before the answer: ${s.left}`],
      ['key holder', int(r.keyHolder.requests), int(r.keyHolder.ok),
        `p50 ${ms(r.keyHolder.p50Ms, 1)} ms, p99 ${ms(r.keyHolder.p99Ms, 1)} ms`],
      ['honest stranger (/api/datasetcheck)', int(r.honest.requests), int(r.honest.ok), ''],
      ['balancer (/readyz)', int(r.readyz.requests), int(r.readyz.ok), '']
    ]),
    `5xx: ${Object.entries(r.serverErrors).map(([k, n]) => `${k} × ${n}`).join(', ') || 'none'}; ` +
      `unreadable by a page: ${r.unreadable}`,
    `RSS ${r.rssMb.before} MB before, ${r.rssMb.max} MB at most, ${r.rssMb.after} MB after; server CPU ` +
      `${r.serverCpuSeconds.toFixed(1)} s`,
    r.ok ? 'result: OK' : `result: FAILED\n  ${r.failures.join('\n  ')}`
  ].join('\n')
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await runPublicSoak({ seconds: numberArg('seconds', 60), addresses: numberArg('addresses', 8),
    connections: numberArg('connections', 128) })
  console.log(formatSoak(report))
  console.log(`\n→ ${writeResult('public-soak', report)}`)
  process.exitCode = report.ok ? 0 : 1
}
