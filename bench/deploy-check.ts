// bench/deploy-check: the deployment docs/DEPLOY.md describes, run on this machine — Debian's nginx
// with the repository's configuration (deploy/nginx/aloft.conf) and a self-signed certificate made
// by openssl, in front of two `aloft serve` processes on one persistent Redis and one cache
// directory, the NOAA stand-in as the grib filter. Over HTTPS, from loopback addresses standing for
// strangers, it checks what a public deployment must hold:
//   - buckets: public clients forwarded from different addresses each get their own rate bucket
//     (ALOFT_TRUSTED_PROXIES and X-Forwarded-For), and what a client writes in that header itself
//     changes nothing;
//   - cold: a unit asked for at once through both instances is fetched and charged once;
//   - kill: an instance killed with SIGKILL under load (and started again; in the long run each
//     instance in turn) costs no failed idempotent request: nginx sends it to the other.
//   node dist/bench/deploy-check.js [--seconds 60]      (npm run deploy-check)
// Prints a table and writes bench/results/deploy-check.json; `runDeployCheck({ short: true })` is
// part of the test suite (test/deploy.test.ts).
import { mkdtemp, rm } from 'node:fs/promises'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { startUpstream, type UpstreamServer } from '../src/standin/server.js'
import { percentile } from './lib/stats.js'
import { AloftInstance, freePort, REPO, ThrowawayRedis } from './lib/processes.js'
import { selfSigned, startNginx, type Nginx } from './lib/nginx.js'

const ADMIN_TOKEN = 'deploy-admin-token-0123456789'
const FLIGHT = 'tawhiri?launch_latitude=52.2297&launch_longitude=21.0122&launch_datetime=2020-08-04T12:00:00Z&' +
  'ascent_rate=5&burst_altitude=30000&descent_rate=5'

export interface DeployOptions {
  /** The test suite's version: a few seconds of load, one kill and restart. */
  short?: boolean
  /** Seconds of load in the kill phase (long version). */
  seconds?: number
  verbose?: boolean
}

export interface DeployReport {
  /** Statuses of four public requests from each of two client addresses, and of a spoofed header. */
  buckets: { a: number[], b: number[], spoofed: number[] }
  cold: { answers: number[], upstreamRequests: number, charged: number }
  kill: { seconds: number, requests: number, ok: number, failed: number, retried: number, p50Ms: number,
    p99Ms: number, events: string[], statuses: Record<string, number>, firstFailure?: string }
  /** Lines of nginx's access log holding a key (it logs /k/<key>/ paths with the key cut out). */
  keysLogged: number
  ok: boolean
  failures: string[]
}

interface Answer { status: number, body: string, ms: number }

/** An HTTPS client at one loopback address that trusts the run's certificate. */
function client (pem: string, address: string): (url: string, headers?: Record<string, string>) => Promise<Answer> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: pem, localAddress: address })
  return async (url, headers = {}) => await new Promise((resolve) => {
    const t0 = performance.now()
    const req = request(url, { agent, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - t0 }))
      res.on('error', () => resolve({ status: 0, body, ms: performance.now() - t0 }))
    })
    req.on('error', (err) => resolve({ status: 0, body: err.message, ms: performance.now() - t0 }))
    req.end()
  })
}

export async function runDeployCheck (options: DeployOptions = {}): Promise<DeployReport> {
  const short = options.short === true
  const log = (msg: string): void => { if (options.verbose === true) process.stderr.write(`[deploy] ${msg}\n`) }
  const dir = await mkdtemp(join(tmpdir(), 'aloft-deploy-'))
  const redis = new ThrowawayRedis(await freePort(), dir)
  const upstream: UpstreamServer = await startUpstream({ root: join(REPO, 'data/sample') })
  const instances: AloftInstance[] = []
  let nginx: Nginx | undefined
  try {
    await redis.start()
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', REDIS_URL: redis.url,
      ALOFT_REDIS_PREFIX: 'deploy:', ALOFT_ADMIN_TOKEN: ADMIN_TOKEN, ALOFT_SOURCE: `filter:${upstream.filterUrl}`,
      ALOFT_CACHE_DIR: join(dir, 'cache'), ALOFT_LOG_LEVEL: 'warn', ALOFT_WORKERS: '1',
      ALOFT_UPSTREAM_PER_MINUTE: '100000', ALOFT_SHUTDOWN_GRACE_MS: '500',
      // the proxy's own address: its X-Forwarded-For is believed, no one else's
      ALOFT_TRUSTED_PROXIES: '127.0.0.1',
      ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '0.01', ALOFT_PUBLIC_RATE_BURST: '3',
      ALOFT_TAWHIRI_BURST_WAIT_MS: '0', ALOFT_RATE_PER_SECOND: '100000', ALOFT_RATE_BURST: '100000'
    }
    for (let k = 0; k < 2; k++) instances.push(new AloftInstance(await freePort(), env, log))
    await Promise.all(instances.map(async (i) => await i.start()))
    for (const i of instances) await i.ready()
    const tls = await selfSigned(dir)
    nginx = await startNginx(dir, instances.map((i) => i.url), await freePort(), tls)
    const base = nginx.url
    const accounts = await Promise.all([1, 2].map(async (k) => await newKey(instances[0].url, `deploy ${k}`)))
    log(`nginx on ${base}, instances ${instances.map((i) => i.port).join(', ')}`)

    // keys where no key belongs: nginx's access log must not keep them either
    const odd = client(tls.pem, '127.0.10.5')
    for (const path of [`/K/${accounts[0].key}/api/datasetcheck`, `/api/datasetcheck?token=${accounts[0].key}`,
      `/v1/${accounts[0].key}`]) await odd(`${base}${path}`)
    const buckets = await bucketCheck(tls.pem, base)
    const cold = await coldCheck(tls.pem, base, upstream, accounts[1], instances[0].url)
    const kill = await killCheck(tls.pem, base, accounts[0].key, instances, nginx,
      short ? 4 : options.seconds ?? 60, log)
    const failures: string[] = []
    const want = (ok: boolean, what: string): void => { if (!ok) failures.push(what) }
    want(buckets.a.join() === '200,200,200,429' && buckets.b.join() === '200,200,200,429',
      `each forwarded client its own bucket of 3: ${buckets.a.join()} / ${buckets.b.join()}`)
    want(buckets.spoofed.join() === '429', `a spoofed X-Forwarded-For changes nothing: ${buckets.spoofed.join()}`)
    want(cold.answers.every((s) => s === 200) && cold.upstreamRequests === 1 && cold.charged === 1,
      `a cold unit fetched and charged once: ${JSON.stringify(cold)}`)
    const keysLogged = (await nginx.accessLog()).filter((l) => accounts.some((a) => l.includes(a.key))).length
    want(keysLogged === 0, `nginx's access log holds no key: ${keysLogged} lines do`)
    want(kill.failed === 0, `no failed request while an instance was killed: ${kill.failed} of ${kill.requests} ` +
      `(${JSON.stringify(kill.statuses)}); nginx said: ${(await nginx.errorLog()).slice(0, 4)
        .map((l) => l.replace(/, client: .*/, '')).join(' | ')}`)
    return { buckets, cold, kill, keysLogged, ok: failures.length === 0, failures }
  } finally {
    await nginx?.stop()
    await Promise.all(instances.map(async (i) => await i.kill()))
    await redis.kill()
    await upstream.close()
    await rm(dir, { recursive: true, force: true })
  }
}

async function newKey (url: string, name: string): Promise<{ key: string, accountId: string }> {
  const res = await fetch(`${url}/v1/admin/accounts`, { method: 'POST', body: JSON.stringify({ name }),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } })
  const body = await res.json() as { account: { id: string }, key: { key: string } }
  return { key: body.key.key, accountId: body.account.id }
}

/** Two strangers, each its burst of 3 and a fourth; then one claiming to be the other. */
async function bucketCheck (pem: string, base: string): Promise<DeployReport['buckets']> {
  const [a, b] = [client(pem, '127.0.10.1'), client(pem, '127.0.10.2')]
  const four = async (ask: typeof a, headers?: Record<string, string>): Promise<number[]> => {
    const out: number[] = []
    for (let k = 0; k < 4; k++) out.push((await ask(`${base}/api/datasetcheck`, headers)).status)
    return out
  }
  const statuses = { a: await four(a), b: await four(b) }
  // a third spends its burst, then claims another address: what a client writes in the header
  // itself stays to the left of the address nginx appends, and changes nothing
  const c = client(pem, '127.0.10.3')
  for (let k = 0; k < 3; k++) await c(`${base}/api/datasetcheck`)
  const spoofed = [(await c(`${base}/api/datasetcheck`, { 'x-forwarded-for': '127.0.10.99' })).status]
  return { ...statuses, spoofed }
}

/** Six asks at once for one cold place, through nginx to both instances; the stand-in slowed so they overlap. */
async function coldCheck (pem: string, base: string, upstream: UpstreamServer, who: { key: string, accountId: string },
  direct: string): Promise<DeployReport['cold']> {
  const slow = upstream.fail({ match: /filter_gfs_0p25/, mode: { slowMs: 400 } })
  const before = upstream.count(/filter_gfs_0p25/)
  const ask = client(pem, '127.0.10.4')
  const answers = await Promise.all(Array.from({ length: 6 }, async () =>
    (await ask(`${base}/k/${who.key}/api/ruaumoko/?latitude=50.6&longitude=16.6`)).status))
  slow()
  const usage = await (await fetch(`${direct}/v1/atmosphere/usage`, { headers: { 'x-api-key': who.key } }))
    .json() as { upstream_attempts: number }
  return { answers, upstreamRequests: upstream.count(/filter_gfs_0p25/) - before, charged: usage.upstream_attempts }
}

/** Flights asked without pause by 12 clients while instances are killed (SIGKILL) and started again. */
async function killCheck (pem: string, base: string, key: string, instances: AloftInstance[], nginx: Nginx,
  seconds: number, log: (msg: string) => void): Promise<DeployReport['kill']> {
  const before = (await nginx.accessLog()).length
  const until = Date.now() + seconds * 1000
  const answers: Answer[] = []
  const events: string[] = []
  const started = Date.now()
  const load = Promise.all(Array.from({ length: 12 }, async (_, k) => {
    const ask = client(pem, `127.0.11.${k + 1}`)
    while (Date.now() < until) answers.push(await ask(`${base}/k/${key}/${FLIGHT}`))
  }))
  // the instances killed in turn, evenly over the run (once in the short run, every 15 s in the long),
  // each started again half a period later: the other is back in nginx's rotation before its turn
  const kills = seconds <= 15 ? 1 : Math.floor(seconds / 15)
  const period = seconds * 1000 / (kills + 1)
  for (let k = 1; k <= kills; k++) {
    await sleep(started + k * period - Date.now())
    const victim = instances[(k - 1) % instances.length]
    await victim.kill('SIGKILL')
    events.push(`${((Date.now() - started) / 1000).toFixed(1)} s: instance ${victim.port} killed (SIGKILL)`)
    log(events[events.length - 1])
    await sleep(started + (k + 0.5) * period - Date.now())
    await victim.start()
    events.push(`${((Date.now() - started) / 1000).toFixed(1)} s: instance ${victim.port} started again`)
    log(events[events.length - 1])
  }
  await load
  const lines = (await nginx.accessLog()).slice(before)
  const ms = answers.map((a) => a.ms).sort((x, y) => x - y)
  return {
    seconds,
    requests: answers.length,
    ok: answers.filter((a) => a.status === 200).length,
    failed: answers.filter((a) => a.status !== 200).length,
    // a request nginx sent to a second instance names both in $upstream_addr
    retried: lines.filter((l) => /upstream=\S+, /.test(l)).length,
    p50Ms: percentile(ms, 50),
    p99Ms: percentile(ms, 99),
    events,
    statuses: answers.reduce<Record<string, number>>((n, a) => ({ ...n, [a.status]: (n[a.status] ?? 0) + 1 }), {}),
    firstFailure: answers.find((a) => a.status !== 200)?.body.slice(0, 300)
  }
}

/** The report as a table (`table`: bench/lib's, passed in so the test suite need not load that module). */
export function formatDeploy (r: DeployReport, table: (header: string[], rows: string[][]) => string): string {
  const k = r.kill
  return [
    table(['check', 'result'], [
      ['public clients through nginx, burst 3 each', `A ${r.buckets.a.join(' ')} · B ${r.buckets.b.join(' ')}`],
      ['a client writing its own X-Forwarded-For', r.buckets.spoofed.join(' ')],
      ['one cold unit asked 6× at once via both instances', `answers ${r.cold.answers.join(' ')}; fetched ` +
        `${r.cold.upstreamRequests}×, charged ${r.cold.charged}`],
      [`flights for ${k.seconds} s, 12 clients, instances killed`, `${k.requests} requests, ${k.ok} ok, ${k.failed} ` +
        `failed, ${k.retried} retried by nginx on the other instance; p50 ${k.p50Ms.toFixed(1)} ms, ` +
        `p99 ${k.p99Ms.toFixed(1)} ms`]
    ]),
    ...k.events.map((e) => `  ${e}`),
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
