// A load run (bench/children/loadgen.ts runs one in its own process; the tests run it in theirs).
// - closed loop (`mode: 'closed'`): `connections` keep-alive connections, each sending its next
//   request when the last answer has arrived: the maximum throughput.
// - open loop (`mode: 'open'`): requests start at a fixed `rate` whatever the answers do; the
//   latency of each is counted from when it was due, not when a connection was free (no
//   coordinated omission), so queueing shows up as latency. wrk cannot hold a fixed rate.
// With Node's http client, bench/lib/raw-client's raw sockets or (open loop only) the C client.
// Every run is bounded in time (seconds + warm-up + drain) and in count (maxRequests).
import { Agent, request as httpRequest } from 'node:http'
import type { LoadResult, LoadSpec } from './load-spec.js'
import { MAKE_AHEAD_MAX, picker, prepare, requestCount, type Prepared } from './load-requests.js'
import { runOpenC } from './load-c.js'
import { resultOf } from './load-summary.js'
import { formatRequest, RawPool, type Outcome } from './raw-client.js'

// what a run's callers use beside it
export { hasCLoadgen } from './load-c.js'
export type { LoadRequest, LoadResult, LoadSpec } from './load-spec.js'

export async function runLoad (spec: LoadSpec): Promise<LoadResult> {
  if (spec.mode === 'open' && !(spec.rate !== undefined && spec.rate > 0)) throw new Error('open loop needs a rate > 0')
  const prepared = prepare(spec)
  const pick = picker(spec)
  const maxRequests = requestCount(spec)
  if (spec.client === 'c') return await runOpenC(spec, prepared, pick, maxRequests)
  return await new NodeRun(spec, prepared, pick, maxRequests).run()
}

type Finish = (outcome: string, error: boolean) => void

/** A run with Node's http client or the raw sockets, and what it measured as its requests end. */
class NodeRun {
  private readonly agent: Agent
  private readonly raw: RawPool | null
  /** Each request's bytes for the raw client, formatted once (a fresh body: per request). */
  private readonly rawBytes: Array<Buffer | null>
  private readonly made: Buffer[][]
  private readonly madeNext: number[]
  private readonly timeoutMs: number
  private t0 = 0
  private measureFrom = 0
  private measureTo = 0
  // measured samples: start offset (ms from measureFrom), latency (ms), kind index, error flag
  private readonly starts: number[] = []
  private readonly latencies: number[] = []
  private readonly kinds: number[] = []
  private readonly failed: number[] = []
  private readonly outcomes: Record<string, number> = {}
  private sent = 0
  private started = 0
  private inFlight = 0
  private done = false

  constructor (private readonly spec: LoadSpec, private readonly prepared: Prepared[],
    private readonly pick: () => number, private readonly maxRequests: number) {
    // idle sockets retire at 4 s, before the server's 5 s keep-alive timeout closes them: a request
    // sent on a socket the server is closing at that moment is reset (a client-side race of HTTP)
    this.agent = new Agent({ keepAlive: true, maxSockets: spec.connections, maxFreeSockets: spec.connections,
      timeout: 4000 })
    this.raw = spec.client === 'raw'
      ? new RawPool(prepared[0].host, prepared[0].port, spec.connections, spec.timeoutMs ?? 10_000)
      : null
    if (this.raw !== null && prepared.some((p) => p.host !== prepared[0].host || p.port !== prepared[0].port)) {
      throw new Error('the raw client talks to one server')
    }
    this.rawBytes = prepared.map((p) => p.fresh === null
      ? formatRequest(p.method, p.host, p.port, p.path, p.headers, p.body)
      : null)
    this.timeoutMs = spec.timeoutMs ?? 10_000
    // An open loop's fresh requests are made before the clock starts: making one (a random body, its
    // JSON, the request bytes) on schedule costs the generator time and garbage, and its pauses would
    // be read as the server's latency. Up to a bound (a long soak makes them as it goes).
    this.made = prepared.map(() => [])
    const freshKinds = prepared.filter((p) => p.fresh !== null).length
    if (spec.mode === 'open' && this.raw !== null && maxRequests * freshKinds <= MAKE_AHEAD_MAX) {
      prepared.forEach((p, k) => {
        for (let n = 0; p.fresh !== null && n < maxRequests; n++) {
          this.made[k].push(formatRequest(p.method, p.host, p.port, p.path, p.headers, Buffer.from(p.fresh())))
        }
      })
    }
    this.madeNext = prepared.map(() => 0)
  }

  async run (): Promise<LoadResult> {
    this.t0 = performance.now()
    this.measureFrom = this.t0 + (this.spec.warmupSeconds ?? 0) * 1000
    this.measureTo = this.measureFrom + this.spec.seconds * 1000
    const schedulerLagMs = this.spec.mode === 'closed' ? await this.closedLoop() : await this.openLoop()
    this.done = true
    const unfinished = this.inFlight
    if (unfinished > 0) this.outcomes['all error:unfinished'] = unfinished
    this.agent.destroy()
    this.raw?.close()
    const elapsed = Math.min(performance.now(), this.measureTo) - this.measureFrom
    return resultOf({ spec: this.spec, kindNames: this.prepared.map((p) => p.kind), starts: this.starts,
      latencies: this.latencies, kinds: this.kinds, failed: this.failed, outcomes: this.outcomes, sent: this.sent,
      elapsedMs: elapsed, schedulerLagMs, unfinished })
  }

  /** Each connection sends its next request when the last is answered; no lag to report. */
  private async closedLoop (): Promise<number> {
    const user = async (): Promise<void> => {
      while (performance.now() < this.measureTo && this.started < this.maxRequests) {
        await this.send(this.pick(), performance.now())
      }
    }
    await Promise.all(Array.from({ length: this.spec.connections }, user))
    return 0
  }

  /** Requests due at the rate whatever the answers do, then the drain; the scheduler's largest lag. */
  private async openLoop (): Promise<number> {
    const { t0, measureTo } = this
    const interval = 1000 / this.spec.rate!
    let schedulerLagMs = 0
    let next = 0 // index of the next request due
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const now = performance.now()
        while (t0 + next * interval <= now && t0 + next * interval < measureTo && this.started < this.maxRequests) {
          const due = t0 + next * interval
          schedulerLagMs = Math.max(schedulerLagMs, now - due)
          void this.send(this.pick(), due)
          next++
        }
        if (t0 + next * interval >= measureTo || this.started >= this.maxRequests) { resolve(); return }
        setTimeout(tick, Math.max(0, Math.min(1, t0 + next * interval - performance.now())))
      }
      tick()
    })
    const drainTo = performance.now() + (this.spec.drainSeconds ?? 10) * 1000
    while (this.inFlight > 0 && performance.now() < drainTo) await new Promise((r) => setTimeout(r, 5))
    return schedulerLagMs
  }

  private record (k: number, due: number, outcome: string, error: boolean): void {
    if (due < this.measureFrom || due >= this.measureTo) return
    const end = performance.now()
    this.starts.push(due - this.measureFrom)
    this.latencies.push(end - due)
    this.kinds.push(k)
    this.failed.push(error ? 1 : 0)
    const key = `${this.prepared[k].kind} ${outcome}`
    this.outcomes[key] = (this.outcomes[key] ?? 0) + 1
  }

  /** Send request k, due at `due`; resolves when it is answered or failed. */
  private send (k: number, due: number): Promise<void> {
    this.started++
    if (due >= this.measureFrom && due < this.measureTo) this.sent++
    this.inFlight++
    return new Promise<void>((resolve) => {
      let settled = false
      const finish: Finish = (outcome, error) => {
        if (settled) return
        settled = true
        this.inFlight--
        if (!this.done) this.record(k, due, outcome, error)
        resolve()
      }
      if (this.raw !== null) this.sendRaw(this.raw, k, finish)
      else this.sendHttp(k, finish)
    })
  }

  private sendRaw (raw: RawPool, k: number, finish: Finish): void {
    const p = this.prepared[k]
    const bytes = this.rawBytes[k] ?? this.made[k][this.madeNext[k]++] ??
      formatRequest(p.method, p.host, p.port, p.path, p.headers, Buffer.from(p.fresh!()))
    raw.request(bytes, (o: Outcome) => {
      if ('status' in o) finish(String(o.status), o.status >= 500)
      else finish(o.error, true)
    })
  }

  private sendHttp (k: number, finish: Finish): void {
    const p = this.prepared[k]
    let headers = p.headers
    let body = p.body
    if (p.fresh !== null) {
      body = Buffer.from(p.fresh())
      headers = { ...p.headers, 'content-length': String(body.length) }
    }
    const options = { agent: this.agent, host: p.host, port: p.port, method: p.method, path: p.path, headers }
    const req = httpRequest(options, (res) => {
      res.on('data', () => {})
      res.on('end', () => finish(String(res.statusCode), (res.statusCode ?? 0) >= 500))
      res.on('error', (err: NodeJS.ErrnoException) => finish(`error:${err.code ?? err.message}`, true))
    })
    req.setTimeout(this.timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })))
    req.on('error', (err: NodeJS.ErrnoException) => finish(`error:${err.code ?? err.message}`, true))
    req.end(body ?? undefined)
  }
}
