// bench/deploy-check: the deployment docs/DEPLOY.md describes, run on this machine as an operator
// runs it — Debian's nginx with the repository's configuration (deploy/nginx/aloft.conf) and a
// self-signed certificate made by openssl, in front of two `aloft serve` instances on one
// persistent Redis and one cache directory (A a host of two processes, B one), the NOAA stand-in as
// the grib filter. Over HTTPS, from loopback addresses standing for strangers, it checks what a
// public deployment must hold:
//   - buckets: public clients forwarded from different addresses each get their own rate bucket
//     (ALOFT_TRUSTED_PROXIES and X-Forwarded-For), and what a client writes in that header itself
//     changes nothing;
//   - cold: a unit asked for at once through both instances is fetched and charged once;
//   - shared: a unit fetched through one process is cached for every process of both instances, so
//     a caller whose daily allowance that fetch spent is still answered everywhere;
//   - under keep-alive load of cached profiles (POST) and flights (GET), four faults, one at a time,
//     each begun only once the fleet is whole again (the last restarted instance ready and back in
//     nginx's rotation):
//       rolling: each instance in turn stopped with SIGTERM (it drains), started, ready — 0 failed;
//       kill: an instance killed with SIGKILL (its whole group) and started again — at most 2 failed
//         each (the long run kills the instances in turn for its seconds);
//       process: one process of A killed with SIGKILL — clients on their own connections to A get an
//         answer, a refusal or a reset at once, none is left hanging;
//       stall: one process of A stopped (SIGSTOP) for 5 s, then the other killed — A's /metrics,
//         scraped throughout, never shows a counter or histogram lower than before, and counts no
//         request twice (never more 200s than nginx received from A);
//   - nginx's access log holds no key.
//   node dist/bench/deploy-check.js [--seconds 60]      (npm run deploy-check; seconds: the kill phase)
// Prints a table and writes bench/results/deploy-check.json; `runDeployCheck({ short: true })` is
// part of the test suite (test/deploy.test.ts).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { startUpstream, type UpstreamServer } from '../src/standin/server.js'
import { AloftInstance, freePort, REPO, ThrowawayRedis } from './lib/processes.js'
import { selfSigned, startNginx, type Nginx } from './lib/nginx.js'
import {
  ADMIN_TOKEN, bucketCheck, coldCheck, newKey, sharedCheck, type BucketReport, type ColdReport, type SharedReport
} from './lib/deploy/checks.js'
import { client, getOnce } from './lib/deploy/http.js'
import { Fleet, FLIGHT, PROFILE, type PhaseReport } from './lib/deploy/fleet.js'
import { withDirectClients, withScrapes, type ScrapeReport } from './lib/deploy/watch.js'

/** Upstream attempts an account may make a day here: the shared check spends one account's. */
const DAILY_ALLOWANCE = 20
/** How long a process of A is stopped in the stall phase. */
const STALL_MS = 5000

export interface DeployOptions {
  /** The test suite's version: one fault of each kind. */
  short?: boolean
  /** Seconds of the kill phase (long version): instances killed in turn for this long. */
  seconds?: number
  verbose?: boolean
}

export interface DeployReport {
  /** Statuses of four public requests from each of two client addresses, and of a spoofed header. */
  buckets: BucketReport
  cold: ColdReport
  shared: SharedReport
  rolling: PhaseReport
  kill: PhaseReport & { kills: number }
  /** Direct clients (a new connection a request) of A while one of its processes was killed. */
  process: PhaseReport & { direct: Record<string, number> }
  /** A process stalled 5 s, then the other killed, A's /metrics scraped throughout (the long run only). */
  stall?: PhaseReport & ScrapeReport
  /** Lines of nginx's access log holding a key (it logs /k/<key>/ paths with the key cut out). */
  keysLogged: number
  ok: boolean
  failures: string[]
}

interface Deployment {
  dir: string
  redis: ThrowawayRedis
  upstream: UpstreamServer
  /** A (a host of two processes) and B (one). */
  instances: AloftInstance[]
  nginx?: Nginx
}

/** Redis, the stand-in and the two instances, started; nginx in front of them. */
async function deploy (d: Deployment, log: (msg: string) => void): Promise<{ nginx: Nginx, pem: string }> {
  await d.redis.start()
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', REDIS_URL: d.redis.url,
    ALOFT_REDIS_PREFIX: 'deploy:', ALOFT_ADMIN_TOKEN: ADMIN_TOKEN, ALOFT_SOURCE: `filter:${d.upstream.filterUrl}`,
    ALOFT_CACHE_DIR: join(d.dir, 'cache'), ALOFT_LOG_LEVEL: 'warn', ALOFT_WORKERS: '1',
    ALOFT_UPSTREAM_PER_MINUTE: '100000', ALOFT_DAILY_ALLOWANCE: String(DAILY_ALLOWANCE),
    // the proxy's own address: its X-Forwarded-For is believed, no one else's
    ALOFT_TRUSTED_PROXIES: '127.0.0.1',
    ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '0.01', ALOFT_PUBLIC_RATE_BURST: '3',
    ALOFT_TAWHIRI_BURST_WAIT_MS: '0', ALOFT_RATE_PER_SECOND: '100000', ALOFT_RATE_BURST: '100000'
  }
  d.instances.push(new AloftInstance(await freePort(), { ...env, ALOFT_PROCESSES: '2' }, log))
  d.instances.push(new AloftInstance(await freePort(), env, log))
  await Promise.all(d.instances.map(async (i) => await i.start()))
  for (const i of d.instances) await i.ready()
  const tls = await selfSigned(d.dir)
  d.nginx = await startNginx(d.dir, d.instances.map((i) => i.url), await freePort(), tls)
  log(`nginx on ${d.nginx.url}, instances ${d.instances.map((i) => i.port).join(', ')}`)
  return { nginx: d.nginx, pem: tls.pem }
}

export async function runDeployCheck (options: DeployOptions = {}): Promise<DeployReport> {
  const log = (msg: string): void => { if (options.verbose === true) process.stderr.write(`[deploy] ${msg}\n`) }
  const dir = await mkdtemp(join(tmpdir(), 'aloft-deploy-'))
  const d: Deployment = { dir, redis: new ThrowawayRedis(await freePort(), dir), instances: [],
    upstream: await startUpstream({ root: join(REPO, 'data/sample') }) }
  try {
    const { nginx, pem } = await deploy(d, log)
    const [a, b] = d.instances
    const base = nginx.url
    const accounts = await Promise.all([1, 2, 3].map(async (k) => await newKey(b.url, `deploy ${k}`)))
    // keys where no key belongs: nginx's access log must not keep them either
    const odd = client(pem, '127.0.10.5')
    for (const path of [`/K/${accounts[0].key}/api/datasetcheck`, `/api/datasetcheck?token=${accounts[0].key}`,
      `/v1/${accounts[0].key}`]) await odd(`${base}${path}`)
    const buckets = await bucketCheck(pem, base)
    const cold = await coldCheck(pem, base, d.upstream, accounts[1], b.url)
    const shared = await sharedCheck(pem, base, d.upstream, accounts[2], a, b)
    // the load's data, cached before any fault
    for (const i of d.instances) {
      await getOnce(`${i.url}/k/${accounts[0].key}/${FLIGHT}`)
      await fetch(`${i.url}/v1/atmosphere/profile`, { method: 'POST', body: PROFILE,
        headers: { 'x-api-key': accounts[0].key, 'content-type': 'application/json' } })
    }
    // the short run's clients ask at most ten times a second each
    const fleet = new Fleet(pem, base, accounts[0].key, nginx, log, options.short === true ? 100 : 0)
    const faults = await underFaults(fleet, d.instances, nginx, options)
    const keysLogged = (await nginx.accessLog()).filter((l) => accounts.some((k) => l.includes(k.key))).length
    const report = { buckets, cold, shared, ...faults, keysLogged }
    const failures = judge(report)
    if (failures.length > 0) {
      failures.push(`nginx said: ${(await nginx.errorLog()).slice(-4).map((l) => l.replace(/, client: .*/, ''))
        .join(' | ')}`)
    }
    return { ...report, ok: failures.length === 0, failures }
  } finally {
    await d.nginx?.stop()
    await Promise.all(d.instances.map(async (i) => await i.kill()))
    await d.redis.kill()
    await d.upstream.close()
    await rm(dir, { recursive: true, force: true })
  }
}

type FaultReports = Pick<DeployReport, 'rolling' | 'kill' | 'process'> & Partial<Pick<DeployReport, 'stall'>>

/** The four phases of faults under load, one after another, each begun with the fleet whole. */
async function underFaults (fleet: Fleet, instances: AloftInstance[], nginx: Nginx, options: DeployOptions):
Promise<FaultReports> {
  const [a] = instances
  const rolling = await fleet.phase('rolling restart', async (event) => {
    for (const i of instances) await fleet.restart(i, 'SIGTERM', event)
  })
  let kills = 0
  const kill = await fleet.phase('kill', async (event) => {
    const until = Date.now() + (options.short === true ? 0 : (options.seconds ?? 60) * 1000)
    do {
      // B first: the short run's one kill is of a single-process instance, A's processes have their own phases
      await fleet.restart(instances[(kills + 1) % 2], 'SIGKILL', event)
      kills++
    } while (Date.now() < until)
  })
  let direct: Record<string, number> = {}
  const processPhase = await fleet.phase('process', async (event) => {
    direct = await withDirectClients(a.port, async () => {
      const [victim] = await a.processes()
      process.kill(victim, 'SIGKILL')
      event(`a process of instance ${a.port} killed (SIGKILL)`)
      await fleet.replaced(a, victim, event)
    })
  })
  let metrics: ScrapeReport = { scrapes: 0, failedScrapes: 0, drops: [], counted: 0, received: 0 }
  // the short run leaves the stall to test/cluster/host-replace.test.ts, which holds the same on one host
  if (options.short === true) return { rolling, kill: { ...kill, kills }, process: { ...processPhase, direct } }
  const stall = await fleet.phase('stall', async (event) => {
    metrics = await withScrapes(a, nginx, async () => {
      const [stalled, other] = await a.processes()
      process.kill(stalled, 'SIGSTOP')
      event(`a process of instance ${a.port} stopped (SIGSTOP)`)
      await sleep(STALL_MS)
      process.kill(stalled, 'SIGCONT')
      event(`and continued after ${STALL_MS / 1000} s`)
      process.kill(other, 'SIGKILL')
      event('the other process killed (SIGKILL)')
      await fleet.replaced(a, other, event)
    })
  })
  return { rolling, kill: { ...kill, kills }, process: { ...processPhase, direct }, stall: { ...stall, ...metrics } }
}

/** What did not hold, in words. */
function judge (r: Omit<DeployReport, 'ok' | 'failures'>): string[] {
  const failures: string[] = []
  const want = (ok: boolean, what: string): void => { if (!ok) failures.push(what) }
  want(r.buckets.a.join() === '200,200,200,429' && r.buckets.b.join() === '200,200,200,429',
    `each forwarded client its own bucket of 3: ${r.buckets.a.join()} / ${r.buckets.b.join()}`)
  want(r.buckets.spoofed.join() === '429', `a spoofed X-Forwarded-For changes nothing: ${r.buckets.spoofed.join()}`)
  want(r.cold.answers.every((s) => s === 200) && r.cold.upstreamRequests === 1 && r.cold.charged === 1,
    `a cold unit fetched and charged once: ${JSON.stringify(r.cold)}`)
  want(r.shared.remaining === 0 && [...r.shared.answers, ...r.shared.direct].every((s) => s === 200) &&
    r.shared.upstreamRequests === 0 && r.shared.charged === 0,
  `a unit fetched through one process serves every process to a caller whose allowance is spent: ${
    JSON.stringify(r.shared)}`)
  want(r.keysLogged === 0, `nginx's access log holds no key: ${r.keysLogged} lines do`)
  want(r.rolling.failed === 0, `no failed request in a rolling restart: ${r.rolling.failed} of ${r.rolling.requests} ` +
    `(${JSON.stringify(r.rolling.statuses)})`)
  want(r.kill.failed <= 2 * r.kill.kills, `at most 2 failed requests a kill: ${r.kill.failed} of ${r.kill.requests} ` +
    `in ${r.kill.kills} kill(s) (${JSON.stringify(r.kill.statuses)})`)
  want((r.process.direct['left hanging'] ?? 0) === 0 && r.process.failed <= 2, `a process killed leaves no ` +
    `request hanging: direct ${JSON.stringify(r.process.direct)}, through nginx ${r.process.failed} failed`)
  if (r.stall !== undefined) {
    want(r.stall.drops.length === 0, `the host's counters never go back: ${r.stall.drops.slice(0, 3).join('; ')}`)
    want(r.stall.counted <= r.stall.received, `no request counted twice: A counted ${r.stall.counted} answers, ` +
      `nginx received ${r.stall.received} from it`)
    want(r.stall.failed <= 2, `a stalled then killed process: ${r.stall.failed} failed`)
  }
  return failures
}

/** The report as a table (`table`: bench/lib's, passed in so the test suite need not load that module). */
export function formatDeploy (r: DeployReport, table: (header: string[], rows: string[][]) => string): string {
  const phase = (what: string, p: PhaseReport, extra = ''): string[] => [what, `${p.requests} requests in ` +
    `${p.seconds.toFixed(0)} s, ${p.ok} ok, ${p.failed} failed, ${p.retried} retried by nginx on the other instance; ` +
    `p50 ${p.p50Ms.toFixed(1)} ms, p99 ${p.p99Ms.toFixed(1)} ms, max ${p.maxMs.toFixed(0)} ms${extra}`]
  return [
    table(['check', 'result'], [
      ['public clients through nginx, burst 3 each', `A ${r.buckets.a.join(' ')} · B ${r.buckets.b.join(' ')}`],
      ['a client writing its own X-Forwarded-For', r.buckets.spoofed.join(' ')],
      ['one cold unit asked 6× at once via both instances', `answers ${r.cold.answers.join(' ')}; fetched ` +
        `${r.cold.upstreamRequests}×, charged ${r.cold.charged}`],
      ['a unit fetched via A, asked by a caller whose allowance it spent', `via nginx ${r.shared.answers.join(' ')}; ` +
        `direct ${r.shared.direct.join(' ')}; fetched again ${r.shared.upstreamRequests}×, charged ` +
        `${r.shared.charged}`],
      phase('rolling restart (SIGTERM, start, ready; each instance)', r.rolling),
      phase(`instance killed (SIGKILL) ${r.kill.kills}×, each started again`, r.kill),
      phase('one process of A killed (SIGKILL)', r.process, `; A's own clients: ${Object.entries(r.process.direct)
        .map(([k, v]) => `${v} ${k}`).join(', ')}`),
      ...(r.stall === undefined ? [] : [phase(`one process of A stopped ${STALL_MS / 1000} s, the other killed`,
        r.stall, `; ${r.stall.scrapes} scrapes of A (${r.stall.failedScrapes} failed), ${r.stall.drops.length} ` +
        `series lower than before, ${r.stall.counted} answers counted of ${r.stall.received} nginx received`)])
    ]),
    ...(['rolling', 'kill', 'process', 'stall'] as const).flatMap((k) => (r[k]?.events ?? [])
      .map((e) => `  ${k}: ${e}`)),
    r.ok ? 'result: OK' : `result: FAILED\n  ${r.failures.join('\n  ')}`
  ].join('\n')
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { numberArg, table, writeResult } = await import('./lib/index.js')
  const report = await runDeployCheck({ seconds: numberArg('seconds', 60), verbose: true })
  console.log(formatDeploy(report, table))
  console.log(`written: ${writeResult('deploy-check', report)}`)
  process.exitCode = report.ok ? 0 : 1
}
