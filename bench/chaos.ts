// bench/chaos: aloft as an operator runs it — two instances on one persistent Redis and one cache
// directory, the local NOAA stand-in as the grib filter — under a steady mixed load (cached and
// cold profiles, key reads, operator writes, invalid bodies), while faults are injected in turn:
// Redis killed and restarted, Redis down for a while, an instance killed, upstream 5xx, hangs,
// resets and slow bodies, slow-header and slow-body clients, hostile bodies. Then it reconciles:
// per account, upstream attempts charged = requests the stand-in received for that account's
// units; no 500; every non-200 a valid problem document; the recovery time after each fault.
//   npx tsc -p tsconfig.json && node dist/bench/chaos.js [--short] [--default-timeouts] [--processes 2]
// (--processes: each instance a host of that many processes, and one of them killed as a fault)
// Prints a table and writes bench/results/chaos.json. `runChaos({ short: true })` (under a
// minute) is run by the test suite (test/chaos.test.ts).
import { mkdtemp, rm } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { startUpstream, type FailMode, type UpstreamServer } from '../src/standin/server.js'
import { validatorFor } from '../src/contract/validate.js'
import { Problem } from '../src/contract/schemas.js'
import { PROBLEM_CODE_NAMES } from '../src/contract/codes.js'
import { random } from './random.js'
import { AloftInstance, freePort, processesOf, REPO as ROOT, ThrowawayRedis } from './processes.js'

const SAMPLE = join(ROOT, 'data/sample')
const ADMIN_TOKEN = 'chaos-admin-token-0123456789'
/** The sample's grid: 33 rows from 48°N, 49 columns from 13°E, 0.25°. */
const ROWS = 33
const COLS = 49
/** Every valid time the sample holds (one unit per grid point per time with 0.25° filter tiles). */
const TIMES = ['2020-07-21T12:00:00Z', '2020-07-22T06:00:00Z', '2020-07-28T12:00:00Z', '2020-08-04T12:00:00Z',
  '2020-08-04T18:00:00Z', '2020-08-05T00:00:00Z', '2020-08-15T12:00:00Z', '2020-08-15T18:00:00Z',
  '2020-08-29T06:00:00Z']
const ACCOUNTS = 4
const isProblem = validatorFor(Problem)

export interface ChaosOptions {
  /** Short phases (the test suite's version, under a minute). */
  short?: boolean
  /** Print progress to stderr. */
  verbose?: boolean
  /**
   * The instances keep aloft's own upstream timeout and fetch deadline (30 s and 20 s) instead of
   * short ones: what a Redis restart costs an operator who changed nothing.
   */
  defaultTimeouts?: boolean
  /** Only the faults whose names start with one of these. */
  only?: string[]
  /** HTTP processes of each instance (ALOFT_PROCESSES; default 1): with more, a fault kills one of them. */
  processes?: number
}

interface Outcome {
  at: number
  phase: string
  kind: string
  instance: number
  /** HTTP status, or 0 for a connection failure. */
  status: number
  code?: string
  detail?: string
  validProblem: boolean
  ms: number
  error?: string
}

export interface PhaseReport {
  phase: string
  requests: number
  ok: number
  /** Problem codes answered, with counts. */
  problems: Record<string, number>
  status500: number
  invalidProblems: number
  /** Connection failures to an instance that was down (the client failed over), and others. */
  refusedWhileDown: number
  connectionErrors: number
  /** Seconds from the fault's end until cached and cold profiles succeed again on every instance. */
  recoverySeconds: number | null
}

export interface ChaosReport {
  short: boolean
  seconds: number
  phases: PhaseReport[]
  reconcile: Array<{ account: number, charged: number, upstreamRequests: number }>
  ok: boolean
  failures: string[]
}

/**
 * A fault of a host serving with several processes: one of an instance's processes is killed
 * (-9); its primary replaces it while the other processes and the port keep answering.
 */
function processKilled (inst: Instance, log: (msg: string) => void,
  counts: () => { inFlight: number, sent: number }, allow: (phase: string, cut: number) => void): Fault {
  const name = 'one process of an instance killed (-9)'
  return {
    name,
    inject: async () => {
      const [victim] = await processesOf(inst.child!.pid!)
      log(`killing process ${victim} of instance ${inst.port}`)
      // only what was in flight on the instance may fail, and what the client sent in the next moments
      // on a kept-alive connection to the dead process before it saw that connection close
      const before = counts()
      process.kill(victim, 'SIGKILL')
      await sleep(CLOSE_SEEN_MS)
      allow(name, before.inFlight + counts().sent - before.sent)
      await sleep(1000 - CLOSE_SEEN_MS)
      return async () => {}
    }
  }
}

/** How long after a process is killed its clients may still send on a connection to it, unaware. */
const CLOSE_SEEN_MS = 200

/** `alone`: run only when `only` names it (a scenario of its own, e.g. with default timeouts). */
type Fault = { name: string, alone?: true, inject: () => Promise<() => Promise<void>> }

class Instance extends AloftInstance {
  /** The client has seen it refuse connections (as a load balancer would) and sends elsewhere. */
  down = true
}

export async function runChaos (options: ChaosOptions = {}): Promise<ChaosReport> {
  const short = options.short === true
  const log = (msg: string): void => { if (options.verbose === true) process.stderr.write(`[chaos] ${msg}\n`) }
  const dir = await mkdtemp(join(tmpdir(), 'aloft-chaos-'))
  const redis = new ThrowawayRedis(await freePort(), dir)
  const upstream: UpstreamServer = await startUpstream({ root: SAMPLE })
  const instances: Instance[] = []
  const started = Date.now()
  const failures: string[] = []
  const outcomes: Outcome[] = []
  let phase = 'setup'
  try {
    await redis.start()
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      REDIS_URL: redis.url,
      ALOFT_REDIS_PREFIX: 'chaos:',
      ALOFT_ADMIN_TOKEN: ADMIN_TOKEN,
      ALOFT_SOURCE: `filter:${upstream.filterUrl}`,
      ALOFT_TILE_DEGREES: '0.25',
      ALOFT_CACHE_DIR: join(dir, 'cache'),
      ALOFT_LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'error',
      ALOFT_WORKERS: '1',
      ALOFT_PROCESSES: String(options.processes ?? 1),
      ALOFT_UPSTREAM_PER_MINUTE: '100000',
      ...(options.defaultTimeouts === true ? {} : {
        ALOFT_UPSTREAM_TIMEOUT_MS: short ? '1500' : '5000',
        ALOFT_FETCH_DEADLINE_MS: short ? '2500' : '8000'
      }),
      ALOFT_HEADERS_TIMEOUT_MS: short ? '1000' : '3000',
      ALOFT_REQUEST_TIMEOUT_MS: short ? '2000' : '6000',
      ALOFT_RATE_PER_SECOND: '1000',
      ALOFT_RATE_BURST: '1000',
      ALOFT_DAILY_ALLOWANCE: '1000000',
      ALOFT_SHUTDOWN_GRACE_MS: '500'
    }
    for (let k = 0; k < 2; k++) instances.push(new Instance(await freePort(), env, log))
    const startInstance = async (inst: Instance): Promise<void> => {
      await inst.start()
      inst.down = false
    }
    await Promise.all(instances.map(startInstance))
    // the warm-up's first cold fetch must not race the worker threads' start on a loaded machine
    for (const inst of instances) await inst.ready()

    // accounts, each with its own grid columns (column % ACCOUNTS), so the stand-in's requests
    // can be told apart by account
    const keys: string[] = []
    for (let a = 0; a < ACCOUNTS; a++) {
      const res = await fetch(`${instances[0].url}/v1/admin/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `chaos ${a}` })
      })
      if (res.status !== 201) throw new Error(`account creation answered ${res.status}`)
      keys.push((await res.json() as { key: { key: string } }).key.key)
    }
    const next = random(15)
    const point = (row: number, col: number, time: string): string => JSON.stringify({
      latitude: 48 + row * 0.25, longitude: 13 + col * 0.25, time, altitudes_m: [1000, 5000], altitude_reference: 'agl'
    })
    const cached = Array.from({ length: ACCOUNTS }, (_, a) =>
      Array.from({ length: 4 }, (_, k) => point(4 + 6 * k, a + 4 * (2 + 2 * k), '2020-08-04T18:00:00Z')))
    const usedCold = new Set<string>()
    const coldBody = (a: number): string => {
      for (;;) {
        const row = Math.floor(next() * ROWS)
        const col = a + ACCOUNTS * Math.floor(next() * Math.floor(COLS / ACCOUNTS))
        const time = TIMES[Math.floor(next() * TIMES.length)]
        const id = `${row}/${col}/${time}`
        if (!usedCold.has(id)) { usedCold.add(id); return point(row, col, time) }
      }
    }

    let rr = 0
    /** Requests sent to each instance and not yet answered (a process killed may cut as many). */
    const inFlight = instances.map(() => 0)
    /** Requests sent to each instance so far. */
    const sentTo = instances.map(() => 0)
    /** Connection errors a fault may cause by its nature, by phase (requests in flight on a killed process). */
    const cutAllowed: Record<string, number> = {}
    const live = (): Instance[] => instances.filter((i) => !i.down)
    /** One request as a client behind a load balancer sends it: a refused connection fails over. */
    const send = async (kind: string, path: string, init: RequestInit): Promise<void> => {
      for (let attempt = 0; attempt < 2; attempt++) {
        const up = live()
        const index = up.length === 0 ? rr++ % instances.length : instances.indexOf(up[rr++ % up.length])
        const inst = instances[index]
        const t0 = Date.now()
        // an outcome belongs to the phase in which its answer arrived (the fault it met)
        const base = (): Pick<Outcome, 'at' | 'phase' | 'kind' | 'instance'> => ({ at: t0 - started, phase, kind,
          instance: index })
        inFlight[index]++
        sentTo[index]++
        try {
          const res = await fetch(`${inst.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) })
          const text = await res.text()
          let code: string | undefined
          let detail: string | undefined
          let validProblem = true
          if (res.status !== 200 && res.status !== 201) {
            try {
              const body = JSON.parse(text) as { code?: string, detail?: string }
              code = body.code
              detail = body.detail
              validProblem = /^application\/problem\+json/.test(res.headers.get('content-type') ?? '') &&
                isProblem(body) && (PROBLEM_CODE_NAMES as string[]).includes(String(body.code))
            } catch {
              validProblem = false
            }
          }
          outcomes.push({ ...base(), status: res.status, code, detail, validProblem, ms: Date.now() - t0 })
          return
        } catch (err) {
          // a connection refused or cut by an instance that was killed: expected, and sent elsewhere
          const dead = !inst.alive
          outcomes.push({
            ...base(),
            status: 0,
            validProblem: true,
            ms: Date.now() - t0,
            error: dead ? 'down' : String((err as Error).cause ?? err)
          })
          if (!dead) return
          inst.down = true
        } finally {
          inFlight[index]--
        }
      }
    }
    const post = (key: string, path: string, body: string): RequestInit =>
      ({ method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body })

    // warm the cached points on both instances (each account's own)
    for (let a = 0; a < ACCOUNTS; a++) {
      for (const body of cached[a]) {
        for (const inst of instances) {
          // a 503 source_busy is the designed answer while the other instance holds the unit's
          // fetch (slow on a loaded machine): the warm-up waits and asks again, as a client would
          let res = await fetch(`${inst.url}/v1/atmosphere/profile`, post(keys[a], '', body))
          for (let retry = 0; res.status === 503 && retry < 5; retry++) {
            const wait = 1000 * Math.min(2, Number(res.headers.get('retry-after') ?? 1))
            await new Promise((resolve) => setTimeout(resolve, wait))
            res = await fetch(`${inst.url}/v1/atmosphere/profile`, post(keys[a], '', body))
          }
          if (res.status !== 200) throw new Error(`warm-up answered ${res.status}: ${await res.text()}`)
        }
      }
    }

    // steady load: per second, `rate` requests of each kind, each account in turn
    let running = true
    const lanes: Array<Promise<void>> = []
    const lane = (kind: string, perSecond: number, make: (a: number) => { path: string, init: RequestInit }): void => {
      lanes.push((async () => {
        let n = 0
        const t0 = Date.now()
        const pending = new Set<Promise<void>>()
        while (running) {
          const a = n % ACCOUNTS
          const { path, init } = make(a)
          const p = send(kind, path, init).finally(() => pending.delete(p))
          pending.add(p)
          n++
          const due = t0 + (n * 1000) / perSecond
          await sleep(Math.max(0, due - Date.now()))
        }
        await Promise.all(pending)
      })())
    }
    lane('cached', 20,
      (a) => ({ path: '/v1/atmosphere/profile', init: post(keys[a], '', cached[a][Math.floor(next() * 4)]) }))
    lane('cold', 4, (a) => ({ path: '/v1/atmosphere/profile', init: post(keys[a], '', coldBody(a)) }))
    lane('keys', 4, (a) => ({ path: '/v1/keys', init: { headers: { 'x-api-key': keys[a] } } }))
    lane('admin', 1, () => ({
      path: '/v1/admin/accounts',
      init: { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: '{"name":"churn"}' }
    }))
    lane('invalid', 2,
      (a) => ({ path: '/v1/atmosphere/profile', init: post(keys[a], '', '{"latitude": 91, "longitude": 0}') }))

    const hold = short ? 1000 : 8000
    const settle = short ? 1500 : 6000
    // the stand-in's grib filter failing this way for `hold`, then mended
    const upstreamFault = (name: string, mode: FailMode): Fault => ({
      name,
      inject: async () => {
        const undo = upstream.fail({ match: /filter_gfs/, mode })
        await sleep(hold)
        return async () => { undo() }
      }
    })
    const allFaults: Fault[] = [
      {
        name: 'redis killed (-9) and restarted',
        inject: async () => { await redis.kill(); await redis.start(); return async () => {} }
      },
      {
        // fetches end while Redis is away (long enough for ioredis to give up their frees): their
        // slots must not stay held until their expiration, the upstream timeout and a second
        name: 'redis killed (-9) under slow cold fetches, restarted 4 s later',
        alone: true,
        inject: async () => {
          const mend = upstream.fail({ match: /filter_gfs/, mode: { slowMs: 1000 } })
          // more cold fetches than the limiter has slots (4), so every slot is held at the kill
          for (let k = 0; k < 8; k++) {
            void send('cold', '/v1/atmosphere/profile', post(keys[k % ACCOUNTS], '', coldBody(k % ACCOUNTS)))
          }
          await sleep(400)
          await redis.kill()
          await sleep(4000)
          mend()
          await redis.start()
          return async () => {}
        }
      },
      {
        name: `redis down for ${short ? 2 : 10} s`,
        inject: async () => {
          await redis.kill()
          await sleep(short ? 2000 : 10_000)
          return async () => { await redis.start() }
        }
      },
      {
        name: 'one instance killed (-9), back after 2 s',
        inject: async () => {
          await instances[1].kill()
          await sleep(2000)
          return async () => { await startInstance(instances[1]) }
        }
      },
      ...((options.processes ?? 1) > 1
        ? [processKilled(instances[0], log, () => ({ inFlight: inFlight[0], sent: sentTo[0] }),
            (phase, n) => { cutAllowed[phase] = n })]
        : []),
      upstreamFault('upstream answers 503', 503),
      upstreamFault('upstream hangs', { slowMs: 60_000 }),
      upstreamFault('upstream resets connections', 'reset'),
      upstreamFault('upstream slow bodies (1 s)', { slowMs: 1000 }),
      {
        name: 'slow-header and slow-body clients',
        inject: async () => {
          const sockets: Socket[] = []
          for (const inst of instances) {
            for (let k = 0; k < 40; k++) {
              const s = connect({ port: inst.port, host: '127.0.0.1' })
              s.on('error', () => {})
              s.write(k % 2 === 0
                ? 'POST /v1/atmosphere/profile HTTP/1.1\r\nHost: aloft\r\nX-Api'
                : `POST /v1/keys HTTP/1.1\r\nHost: aloft\r\nX-API-Key: ${keys[0]}\r\nContent-Type: ` +
                  `application/json\r\nContent-Length: 500\r\n\r\n{"na`)
              sockets.push(s)
            }
          }
          await sleep(hold)
          return async () => { for (const s of sockets) s.destroy() }
        }
      },
      {
        name: 'hostile bodies',
        inject: async () => {
          const bodies = ['['.repeat(8000) + ']'.repeat(8000), JSON.stringify({ latitude: 'x'.repeat(60_000) }),
            '{"a":' + '{"a":'.repeat(50) + '1' + '}'.repeat(51)]
          for (let k = 0; k < 30; k++) await send('hostile', '/v1/atmosphere/profile',
            post(keys[0], '', bodies[k % bodies.length]))
          return async () => {}
        }
      }
    ]

    const faults = options.only === undefined
      ? allFaults.filter((f) => f.alone !== true)
      : allFaults.filter((f) => options.only!.some((prefix) => f.name.startsWith(prefix)))
    phase = 'baseline'
    await sleep(short ? 1000 : 5000)
    const windows: Array<{ name: string, end: number }> = []
    for (const f of faults) {
      phase = f.name
      log(`fault: ${f.name}`)
      const restore = await f.inject()
      await restore()
      windows.push({ name: f.name, end: Date.now() - started })
      await sleep(settle)
    }
    // The last fault has no next phase to observe its recovery in: keep the load going until every
    // instance has answered a cached and a cold request after it (10 s at most: recovery is judged
    // against that bound), so a slow machine is not read as no recovery.
    const last = windows[windows.length - 1]
    const recovered = (): boolean => instances.every((_, i) => ['cached', 'cold'].every((kind) =>
      outcomes.some((o) => o.at >= last.end && o.instance === i && o.kind === kind && o.status === 200)))
    for (const until = Date.now() + 10_000; !recovered() && Date.now() < until;) await sleep(100)
    phase = 'after'
    running = false
    await Promise.all(lanes)
    // let fetches still under way finish before counting charges against the stand-in
    await sleep(short ? 2800 : 9000)

    // reconcile: the stand-in's filter requests per account (the column of the tile) vs charges
    const upstreamByAccount = new Array<number>(ACCOUNTS).fill(0)
    for (const r of upstream.requests) {
      const q = new URL(r.url, 'http://x').searchParams
      if (!r.url.startsWith('/cgi-bin/filter_gfs_0p25.pl')) continue
      const col = Math.round((Number(q.get('leftlon')) - 13) / 0.25)
      upstreamByAccount[((col % ACCOUNTS) + ACCOUNTS) % ACCOUNTS]++
    }
    const reconcile: ChaosReport['reconcile'] = []
    for (let a = 0; a < ACCOUNTS; a++) {
      const res = await fetch(`${live()[0].url}/v1/atmosphere/usage`, { headers: { 'x-api-key': keys[a] } })
      const usage = await res.json() as { upstream_attempts: number }
      reconcile.push({ account: a, charged: usage.upstream_attempts, upstreamRequests: upstreamByAccount[a] })
      if (usage.upstream_attempts !== upstreamByAccount[a]) {
        failures.push(`account ${a}: charged ${usage.upstream_attempts} upstream attempts, the stand-in received ` +
          `${upstreamByAccount[a]}`)
      }
    }

    const phases: PhaseReport[] = ['baseline', ...faults.map((f) => f.name)].map((name) => {
      const xs = outcomes.filter((o) => o.phase === name)
      const problems: Record<string, number> = {}
      for (const o of xs) if (o.code !== undefined) problems[o.code] = (problems[o.code] ?? 0) + 1
      const window = windows.find((w) => w.name === name)
      let recoverySeconds: number | null = null
      if (window !== undefined) {
        const after = outcomes.filter((o) => o.at >= window.end && (o.kind === 'cached' || o.kind === 'cold'))
        const firstOk = instances.flatMap((_, i) => ['cached', 'cold'].map((kind) =>
          after.find((o) => o.instance === i && o.kind === kind && o.status === 200)?.at ?? null))
        recoverySeconds = firstOk.some((x) => x === null) ? null : Math.max(0,
          ...firstOk.map((x) => (x as number) - window.end)) / 1000
      }
      return {
        phase: name,
        requests: xs.length,
        ok: xs.filter((o) => o.status === 200 || o.status === 201).length,
        problems,
        status500: xs.filter((o) => o.status >= 500 && o.status !== 502 && o.status !== 503).length,
        invalidProblems: xs.filter((o) => !o.validProblem).length,
        refusedWhileDown: xs.filter((o) => o.status === 0 && o.error === 'down').length,
        connectionErrors: xs.filter((o) => o.status === 0 && o.error !== 'down').length,
        recoverySeconds
      }
    })
    for (const p of phases) {
      if (p.status500 > 0) failures.push(`${p.phase}: ${p.status500} answer(s) 5xx other than 502/503`)
      if (p.invalidProblems > 0) {
        failures.push(`${p.phase}: ${p.invalidProblems} non-200 answer(s) not a valid problem document`)
      }
      if (p.connectionErrors > (cutAllowed[p.phase] ?? 0)) {
        failures.push(`${p.phase}: ${p.connectionErrors} connection error(s) to a running instance` +
          (cutAllowed[p.phase] !== undefined ? ` (at most ${cutAllowed[p.phase]} were in flight on it)` : ''))
      }
      if (p.phase !== 'baseline' && p.recoverySeconds === null) failures.push(`${p.phase}: no recovery observed`)
    }
    if (phases[0].ok !== phases[0].requests - outcomes.filter((o) => o.phase === 'baseline' &&
      o.kind === 'invalid').length) {
      failures.push('baseline: not every valid request succeeded')
    }
    if (options.verbose === true) {
      const seen = new Map<string, number>()
      for (const o of outcomes.filter((x) => x.status >= 500)) {
        const k = `${o.phase} | instance ${o.instance} | ${o.kind} ${o.status} ${o.detail}`
        seen.set(k, (seen.get(k) ?? 0) + 1)
      }
      for (const [k, n] of seen) log(`${n}× ${k}`)
    }
    return { short, seconds: (Date.now() - started) / 1000, phases, reconcile, ok: failures.length === 0, failures }
  } finally {
    for (const inst of instances) inst.child?.kill('SIGKILL')
    await redis.kill()
    await upstream.close()
    if (process.env.CHAOS_KEEP !== undefined) process.stderr.write(`[chaos] kept ${dir}\n`)
    else await rm(dir, { recursive: true, force: true })
  }
}

function format (report: ChaosReport): string {
  const rows = report.phases.map((p) => [
    p.phase, String(p.requests), String(p.ok),
    Object.entries(p.problems).map(([c, n]) => `${c} ${n}`).join(', ') || '—',
    String(p.status500), String(p.invalidProblems), String(p.refusedWhileDown), String(p.connectionErrors),
    p.recoverySeconds === null ? (p.phase === 'baseline' ? '—' : 'none') : p.recoverySeconds.toFixed(1)
  ])
  const header = ['phase', 'requests', 'ok', 'problems (code count)', '5xx (not 502/503)', 'bad problems',
    'refused (down)',
    'conn. errors', 'recovery s']
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)))
  const line = (r: string[]): string => r.map((x, c) => x.padEnd(widths[c])).join('  ').trimEnd()
  return [line(header), ...rows.map(line), '',
    'reconcile: ' + report.reconcile
      .map((r) => `account ${r.account} charged ${r.charged} / upstream ${r.upstreamRequests}`).join('; '),
    report.ok ? 'result: OK' : `result: FAILED\n  ${report.failures.join('\n  ')}`].join('\n')
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const short = process.argv.includes('--short')
  const at = process.argv.indexOf('--processes')
  const processes = at > 0 ? Number(process.argv[at + 1]) : 1
  // --default-timeouts: the Redis restart scenario with aloft's own upstream timeouts (30 s, 20 s)
  const report = process.argv.includes('--default-timeouts')
    ? await runChaos({ short, verbose: true, defaultTimeouts: true, only: ['redis killed (-9) under'] })
    : await runChaos({ short, verbose: true, processes })
  console.log(`chaos: two instances of ${processes} process(es) each, one persistent Redis, ` +
    'the NOAA stand-in as grib filter; ' +
    `${report.seconds.toFixed(0)} s`)
  console.log(format(report))
  const { writeResult } = await import('./lib.js')
  console.log(`\n→ ${writeResult('chaos', report)}`)
  process.exitCode = report.ok ? 0 : 1
}

export { format as formatChaos }
