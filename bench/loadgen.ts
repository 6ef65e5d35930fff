// bench/loadgen: a small HTTP load generator, run in its own process so it never shares an
// event loop with the server it measures.
//   node dist/bench/loadgen.js '<LoadSpec as JSON>'   → one JSON line, a LoadResult
// - closed loop (`mode: 'closed'`): `connections` keep-alive connections, each sending its next
//   request when the last answer has arrived: the maximum throughput.
// - open loop (`mode: 'open'`): requests start at a fixed `rate` whatever the answers do; the
//   latency of each is counted from when it was due, not when a connection was free (no
//   coordinated omission), so queueing shows up as latency. wrk cannot hold a fixed rate.
// Requests are drawn from `requests` by weight in a fixed pseudo-random order. Every run is
// bounded in time (seconds + warm-up + drain) and in count (maxRequests).
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DIST_BENCH, ROOT } from './lib.js'
import { percentile, summarize, type Summary } from './stats.js'
import { random } from './random.js'
import { freshProfileBodies } from './bodies.js'
import { formatRequest, RawPool, type Outcome } from './raw-client.js'

export interface LoadRequest {
  /** A label for the result tables: `cached`, `cold`, `invalid`, … */
  kind: string
  method: 'GET' | 'POST'
  url: string
  headers?: Record<string, string>
  body?: string
  /** Relative share of the mix; default 1. */
  weight?: number
  /** A new profile body for every request (bench/bodies.ts), from this seed, instead of `body`. */
  freshProfileSeed?: number
}

export interface LoadSpec {
  mode: 'closed' | 'open'
  connections: number
  /** Measured seconds (after the warm-up). */
  seconds: number
  /** Seconds of the same load before measuring; default 0. */
  warmupSeconds?: number
  /** open: requests per second. */
  rate?: number
  requests: LoadRequest[]
  /** Width of the over-time windows; default 10 s. */
  windowSeconds?: number
  /** How long to wait for answers after the end; default 10 s. */
  drainSeconds?: number
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number
  /** Hard bound on requests started; default: the rate's count (open) or 20 million. */
  maxRequests?: number
  /**
   * `raw`: bench/raw-client (one server, answers with a Content-Length): a generator light enough
   * that its own pauses do not swamp a server's tail latency. `c` (open loop only): bench/loadgen.c,
   * compiled on first use (cLoadgen), for tails in the low milliseconds. Default `node` (Node's http client).
   */
  client?: 'node' | 'raw' | 'c'
}

export interface WindowStats {
  startS: number
  count: number
  rps: number
  p50: number
  p99: number
  max: number
  errors: number
}

export interface LoadResult {
  mode: 'closed' | 'open'
  connections: number
  rate: number | null
  seconds: number
  /** Requests started in the measured period; `completed`: of those, answered (any status). */
  sent: number
  completed: number
  /** Completed requests per second of the measured period. */
  rps: number
  /** Milliseconds, all measured requests. */
  latencyMs: Summary
  byKind: Record<string, Summary>
  /** `<kind> <status>` or `<kind> error:<code>` → count. */
  outcomes: Record<string, number>
  windows: WindowStats[]
  /** open: the largest lag of the scheduler behind the schedule (ms), i.e. the generator's own limit. */
  schedulerLagMs: number
  /** Requests still unanswered when the drain ended (counted in outcomes as error:unfinished). */
  unfinished: number
}


interface Prepared {
  kind: string
  method: string
  host: string
  port: number
  path: string
  headers: Record<string, string>
  body: Buffer | null
  /** Makes a new body per request, when the mix asks for never-repeating bodies. */
  fresh: (() => string) | null
}

/** The most requests an open loop makes before it starts (see `made`). */
const MAKE_AHEAD_MAX = 200_000

export async function runLoad (spec: LoadSpec): Promise<LoadResult> {
  if (spec.mode === 'open' && !(spec.rate !== undefined && spec.rate > 0)) throw new Error('open loop needs a rate > 0')
  const prepared: Prepared[] = spec.requests.map((r) => {
    const u = new URL(r.url)
    const body = r.body === undefined ? null : Buffer.from(r.body)
    const headers: Record<string, string> = { ...(r.headers ?? {}) }
    if (body !== null) headers['content-length'] = String(body.length)
    return {
      kind: r.kind,
      method: r.method,
      host: u.hostname,
      port: Number(u.port),
      path: u.pathname + u.search,
      headers,
      body,
      fresh: r.freshProfileSeed === undefined ? null : freshProfileBodies(r.freshProfileSeed)
    }
  })
  const weights = spec.requests.map((r) => r.weight ?? 1)
  const total = weights.reduce((a, b) => a + b, 0)
  const rnd = random(0x5eed)
  const pick = (): number => {
    let x = rnd() * total
    for (let k = 0; k < weights.length; k++) { x -= weights[k]; if (x < 0) return k }
    return weights.length - 1
  }

  // idle sockets retire at 4 s, before the server's 5 s keep-alive timeout closes them: a request
  // sent on a socket the server is closing at that moment is reset (a client-side race of HTTP)
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections, maxFreeSockets: spec.connections,
    timeout: 4000 })
  const raw = spec.client === 'raw'
    ? new RawPool(prepared[0].host, prepared[0].port, spec.connections, spec.timeoutMs ?? 10_000)
    : null
  if (raw !== null && prepared.some((p) => p.host !== prepared[0].host || p.port !== prepared[0].port)) {
    throw new Error('the raw client talks to one server')
  }
  /** Each request's bytes for the raw client, formatted once (a fresh body: per request). */
  const rawBytes = prepared.map((p) => p.fresh === null
    ? formatRequest(p.method, p.host, p.port, p.path, p.headers, p.body)
    : null)
  const warmupMs = (spec.warmupSeconds ?? 0) * 1000
  const measureMs = spec.seconds * 1000
  const timeoutMs = spec.timeoutMs ?? 10_000
  const maxRequests = spec.maxRequests ?? (spec.mode === 'open'
    ? Math.ceil(spec.rate! * (spec.seconds + (spec.warmupSeconds ?? 0))) + 1
    : 20_000_000)
  // An open loop's fresh requests are made before the clock starts: making one (a random body, its
  // JSON, the request bytes) on schedule costs the generator time and garbage, and its pauses would
  // be read as the server's latency. Up to a bound (a long soak makes them as it goes).
  const made: Buffer[][] = prepared.map(() => [])
  const freshKinds = prepared.filter((p) => p.fresh !== null).length
  if (spec.mode === 'open' && raw !== null && maxRequests * freshKinds <= MAKE_AHEAD_MAX) {
    prepared.forEach((p, k) => {
      for (let n = 0; p.fresh !== null && n < maxRequests; n++) {
        made[k].push(formatRequest(p.method, p.host, p.port, p.path, p.headers, Buffer.from(p.fresh())))
      }
    })
  }
  const madeNext = prepared.map(() => 0)
  if (spec.client === 'c') {
    if (spec.mode !== 'open') throw new Error('the C client runs open loops only')
    if (maxRequests * freshKinds > MAKE_AHEAD_MAX) {
      throw new Error(`the C client makes every request ahead: at most ${MAKE_AHEAD_MAX} fresh ones`)
    }
    const sequence = Array.from({ length: maxRequests }, pick)
    const bytes = sequence.map((k) => rawBytes[k] ?? formatRequest(prepared[k].method, prepared[k].host,
      prepared[k].port, prepared[k].path, prepared[k].headers, Buffer.from(prepared[k].fresh!())))
    const ran = await runC(prepared[0].host, prepared[0].port, spec, bytes)
    return summarizeRun(spec, prepared.map((p) => p.kind), ran.rows.map((r) => ({ ...r, k: sequence[r.index] })),
      ran.lagMs)
  }
  const t0 = performance.now()
  const measureFrom = t0 + warmupMs
  const measureTo = measureFrom + measureMs

  // measured samples: start offset (ms from measureFrom), latency (ms), kind index, error flag
  const starts: number[] = []
  const latencies: number[] = []
  const kinds: number[] = []
  const failed: number[] = []
  const outcomes: Record<string, number> = {}
  let sent = 0
  let started = 0
  let inFlight = 0
  let done = false

  const record = (k: number, due: number, outcome: string, error: boolean): void => {
    if (due < measureFrom || due >= measureTo) return
    const end = performance.now()
    starts.push(due - measureFrom)
    latencies.push(end - due)
    kinds.push(k)
    failed.push(error ? 1 : 0)
    const key = `${prepared[k].kind} ${outcome}`
    outcomes[key] = (outcomes[key] ?? 0) + 1
  }

  /** Send request k, due at `due`; resolves when it is answered or failed. */
  const send = (k: number, due: number): Promise<void> => {
    const p = prepared[k]
    started++
    if (due >= measureFrom && due < measureTo) sent++
    inFlight++
    return new Promise<void>((resolve) => {
      let settled = false
      const finish = (outcome: string, error: boolean): void => {
        if (settled) return
        settled = true
        inFlight--
        if (!done) record(k, due, outcome, error)
        resolve()
      }
      if (raw !== null) {
        const bytes = rawBytes[k] ?? made[k][madeNext[k]++] ??
          formatRequest(p.method, p.host, p.port, p.path, p.headers, Buffer.from(p.fresh!()))
        raw.request(bytes, (o: Outcome) => {
          if ('status' in o) finish(String(o.status), o.status >= 500)
          else finish(o.error, true)
        })
        return
      }
      let headers = p.headers
      let body = p.body
      if (p.fresh !== null) {
        body = Buffer.from(p.fresh())
        headers = { ...p.headers, 'content-length': String(body.length) }
      }
      const options = { agent, host: p.host, port: p.port, method: p.method, path: p.path, headers }
      const req = httpRequest(options, (res) => {
        res.on('data', () => {})
        res.on('end', () => finish(String(res.statusCode), (res.statusCode ?? 0) >= 500))
        res.on('error', (err: NodeJS.ErrnoException) => finish(`error:${err.code ?? err.message}`, true))
      })
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })))
      req.on('error', (err: NodeJS.ErrnoException) => finish(`error:${err.code ?? err.message}`, true))
      req.end(body ?? undefined)
    })
  }

  let schedulerLagMs = 0
  if (spec.mode === 'closed') {
    const user = async (): Promise<void> => {
      while (performance.now() < measureTo && started < maxRequests) {
        await send(pick(), performance.now())
      }
    }
    await Promise.all(Array.from({ length: spec.connections }, user))
  } else {
    const interval = 1000 / spec.rate!
    let next = 0 // index of the next request due
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const now = performance.now()
        while (t0 + next * interval <= now && t0 + next * interval < measureTo && started < maxRequests) {
          const due = t0 + next * interval
          schedulerLagMs = Math.max(schedulerLagMs, now - due)
          void send(pick(), due)
          next++
        }
        if (t0 + next * interval >= measureTo || started >= maxRequests) { resolve(); return }
        setTimeout(tick, Math.max(0, Math.min(1, t0 + next * interval - performance.now())))
      }
      tick()
    })
    const drainTo = performance.now() + (spec.drainSeconds ?? 10) * 1000
    while (inFlight > 0 && performance.now() < drainTo) await new Promise((r) => setTimeout(r, 5))
  }
  done = true
  const unfinished = inFlight
  if (unfinished > 0) outcomes['all error:unfinished'] = unfinished
  agent.destroy()
  raw?.close()

  const elapsed = Math.min(performance.now(), measureTo) - measureFrom
  return resultOf({ spec, kindNames: prepared.map((p) => p.kind), starts, latencies, kinds, failed, outcomes, sent,
    elapsedMs: elapsed, schedulerLagMs, unfinished })
}

/** What a run measured, request by request (parallel arrays), before it is summarised. */
interface Measured {
  spec: LoadSpec
  kindNames: string[]
  /** ms from the start of the measured period to when each request was due */
  starts: number[]
  latencies: number[]
  kinds: number[]
  failed: number[]
  outcomes: Record<string, number>
  sent: number
  elapsedMs: number
  schedulerLagMs: number
  unfinished: number
}

function resultOf (m: Measured): LoadResult {
  const { spec, kindNames, starts, latencies, kinds, failed, elapsedMs: elapsed } = m
  const measureMs = spec.seconds * 1000
  const byKind: Record<string, Summary> = {}
  for (let k = 0; k < kindNames.length; k++) {
    const kind = kindNames[k]
    if (byKind[kind] !== undefined) continue
    const same = new Set(kindNames.map((name, i) => name === kind ? i : -1).filter((i) => i >= 0))
    byKind[kind] = summarize(latencies.filter((_, i) => same.has(kinds[i])))
  }
  const windowMs = (spec.windowSeconds ?? 10) * 1000
  const windows: WindowStats[] = []
  for (let w = 0; w * windowMs < measureMs; w++) {
    const lat: number[] = []
    let errors = 0
    for (let i = 0; i < starts.length; i++) {
      if (starts[i] >= w * windowMs && starts[i] < (w + 1) * windowMs) { lat.push(latencies[i]); errors += failed[i] }
    }
    const s = Float64Array.from(lat).sort()
    const width = Math.min(windowMs, measureMs - w * windowMs) / 1000
    windows.push({
      startS: w * windowMs / 1000,
      count: s.length,
      rps: s.length / width,
      p50: percentile(s, 50),
      p99: percentile(s, 99),
      max: s.length > 0 ? s[s.length - 1] : NaN,
      errors
    })
  }
  return {
    mode: spec.mode,
    connections: spec.connections,
    rate: spec.rate ?? null,
    seconds: elapsed / 1000,
    sent: m.sent,
    completed: latencies.length,
    rps: latencies.length / (elapsed / 1000),
    latencyMs: summarize(latencies),
    byKind,
    outcomes: m.outcomes,
    windows,
    schedulerLagMs: m.schedulerLagMs,
    unfinished: m.unfinished
  }
}

/** One answered (or failed) request of a C run. */
interface CRow { index: number, due: number, latency: number, status: number }

/**
 * bench/loadgen.c's binary, compiled from the repository's source when missing or older than it (a C
 * compiler, `cc`, is needed); its path.
 */
function cLoadgen (): string {
  const source = join(ROOT, 'bench', 'loadgen.c')
  const binary = join(DIST_BENCH, 'loadgen-c')
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
    // built beside it and renamed into place: a second process compiling at the same time never runs half a file
    const building = `${binary}.${process.pid}`
    execFileSync('cc', ['-O2', '-Wall', '-o', building, source], { stdio: ['ignore', 'ignore', 'pipe'] })
    renameSync(building, binary)
  }
  return binary
}

/** Whether the C client can run here (it compiles, or is compiled). */
export function hasCLoadgen (): boolean {
  try {
    cLoadgen()
    return true
  } catch {
    return false
  }
}

const C_ERRORS: Record<number, string> = { [-1]: 'error:timeout', [-2]: 'error:connection', [-3]: 'error:unfinished' }

/** Runs the C open loop over these request bytes, in this order; its rows and lag. */
async function runC (host: string, port: number, spec: LoadSpec, requests: Buffer[]):
Promise<{ rows: CRow[], lagMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'aloft-loadgen-'))
  try {
    const file = join(dir, 'requests.bin')
    const count = Buffer.alloc(4)
    count.writeUInt32LE(requests.length)
    const parts: Buffer[] = [count]
    for (const r of requests) {
      const length = Buffer.alloc(4)
      length.writeUInt32LE(r.length)
      parts.push(length, r)
    }
    writeFileSync(file, Buffer.concat(parts))
    const endMs = ((spec.warmupSeconds ?? 0) + spec.seconds) * 1000
    const args = [host === 'localhost' ? '127.0.0.1' : host, String(port), String(spec.connections), String(spec.rate),
      String(endMs), String((spec.drainSeconds ?? 10) * 1000), String(spec.timeoutMs ?? 10_000), file]
    const child = spawn(cLoadgen(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    if (code !== 0) throw new Error(`bench/loadgen.c exited ${String(code)}: ${Buffer.concat(err).toString()}`)
    const rows: CRow[] = []
    let lagMs = NaN
    for (const line of Buffer.concat(out).toString().split('\n')) {
      if (line.startsWith('# lag_ms ')) lagMs = Number(line.slice(9))
      else if (line !== '') {
        const [index, due, latency, status] = line.split(' ').map(Number)
        rows.push({ index, due, latency, status })
      }
    }
    return { rows, lagMs }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A C run's rows as Measured (the same reading as the Node clients': unanswered ones are not latencies). */
function summarizeRun (spec: LoadSpec, kindNames: string[], rows: Array<CRow & { k: number }>, lagMs: number):
LoadResult {
  const warmupMs = (spec.warmupSeconds ?? 0) * 1000
  const measureMs = spec.seconds * 1000
  const m: Measured = { spec, kindNames, starts: [], latencies: [], kinds: [], failed: [], outcomes: {}, sent: 0,
    elapsedMs: measureMs, schedulerLagMs: lagMs, unfinished: 0 }
  for (const r of rows) {
    if (r.status === -3) { m.unfinished++; continue }
    if (r.due < warmupMs || r.due >= warmupMs + measureMs) continue
    m.sent++
    const outcome = r.status >= 0 ? String(r.status) : C_ERRORS[r.status] ?? `error:${r.status}`
    m.starts.push(r.due - warmupMs)
    m.latencies.push(r.latency)
    m.kinds.push(r.k)
    m.failed.push(r.status < 0 || r.status >= 500 ? 1 : 0)
    const key = `${kindNames[r.k]} ${outcome}`
    m.outcomes[key] = (m.outcomes[key] ?? 0) + 1
  }
  if (m.unfinished > 0) m.outcomes['all error:unfinished'] = m.unfinished
  return resultOf(m)
}

if (process.argv[1]?.endsWith('/loadgen.js') === true) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec
  const result = await runLoad(spec)
  process.stdout.write(JSON.stringify(result) + '\n')
  process.exit(0)
}
