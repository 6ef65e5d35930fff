// A host served by several processes (ALOFT_PROCESSES, docs/DESIGN.md §11), started the way
// `npm start` does: the primary replaces a process that dies while the port keeps answering, drains
// every process on SIGTERM, answers /metrics and /readyz for the whole host, refuses to start
// without Redis and ends with the exit code of a start-up that failed in its processes.
import t, { type Test } from 'tap'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { repoPath } from '../helpers/paths.js'
import { startServe } from '../helpers/serve-process.js'
import { redisUrl, testPrefix } from '../helpers/redis.js'
import { startUpstream } from '../../src/standin/server.js'
import { processesOf, waitFor } from '../../bench/lib/processes.js'

const ADMIN = 'host-test-admin-token-0123456789'

function start (env: Record<string, string>) {
  // NODE_OPTIONS carries tap's coverage hooks into the primary and, through it, every process; the
  // primary's own line (no pid) names how many processes serve
  return startServe({ NODE_OPTIONS: process.env.NODE_OPTIONS ?? '', ALOFT_WORKERS: '1', ALOFT_ADMIN_TOKEN: ADMIN,
    ALOFT_SOURCE: `mirror:${repoPath('data/sample')}`, ALOFT_SHUTDOWN_GRACE_MS: '5000',
    // the clients below call as fast as they can: the rate limit is not what these tests are about
    ALOFT_RATE_PER_SECOND: '1000000', ALOFT_RATE_BURST: '1000000', ...env },
  (l) => l.includes('"aloft listening"') && l.includes('"processes":2') && !l.includes('"pid"'))
}

/** A host of two processes on the shared Redis, under a prefix of the test's own. */
function startHost (t: Test, env: Record<string, string> = {}) {
  const host = start({ ALOFT_PROCESSES: '2', REDIS_URL: redisUrl(), ALOFT_REDIS_PREFIX: testPrefix(t, 'host'), ...env })
  t.teardown(() => {
    for (const pid of host.child.pid === undefined ? [] : [host.child.pid]) {
      void processesOf(pid).then((children) => { for (const c of children) process.kill(c, 'SIGKILL') })
    }
    host.child.kill('SIGKILL')
  })
  return host
}

async function newKey (url: string): Promise<string> {
  const made = await fetch(`${url}/v1/admin/accounts`, { method: 'POST', body: '{"name":"host"}',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' } })
  return (await made.json() as { key: { key: string } }).key.key
}

async function readyProcesses (url: string): Promise<{ serving: number, configured: number }> {
  return (await (await fetch(`${url}/readyz`)).json() as { processes: { serving: number, configured: number } })
    .processes
}


const profile = (key: string, url: string, body: string): Promise<Response> => fetch(`${url}/v1/atmosphere/profile`,
  { method: 'POST', body, headers: { 'x-api-key': key, 'content-type': 'application/json' } })
const WARSAW = JSON.stringify({ latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z',
  altitudes_m: [300, 3000], altitude_reference: 'agl' })

t.test('more than one process without REDIS_URL: exit 2, naming both variables', async (t) => {
  const host = start({ ALOFT_PROCESSES: '2' })
  host.listening.catch(() => {})
  const [code] = await host.exited
  t.equal(code, 2)
  t.match(host.output().stderr, /ALOFT_PROCESSES=2 needs REDIS_URL/)
})

t.test('a start that fails in the processes ends the host with its exit code (a busy port: 3)', async (t) => {
  const busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { busy.close() })
  const host = startHost(t, { PORT: String((busy.address() as { port: number }).port) })
  host.listening.catch(() => {})
  const [code] = await host.exited
  t.equal(code, 3)
  t.match(host.output().stderr, /the port is in use/)
})

t.test('a process killed with SIGKILL is replaced; the port keeps answering', async (t) => {
  const host = startHost(t)
  const url = await host.listening
  const key = await newKey(url)
  t.same(await readyProcesses(url), { serving: 2, configured: 2 })
  const before = await processesOf(host.child.pid!)
  t.equal(before.length, 2, 'two processes')
  // four clients in a loop: at most their four requests in flight can be lost with the process
  let running = true
  let ok = 0
  const failed: string[] = []
  const clients = Array.from({ length: 4 }, async () => {
    while (running) {
      const res = await profile(key, url, WARSAW).catch((err: Error) => err)
      if (res instanceof Response && res.status === 200) ok++
      else failed.push(res instanceof Response ? String(res.status) : String(res.cause ?? res))
      if (res instanceof Response) await res.arrayBuffer()
    }
  })
  let served: number
  try {
    await sleep(500)
    process.kill(before[0], 'SIGKILL')
    await waitFor('a replacement serves', async () => {
      const now = await processesOf(host.child.pid!)
      return now.length === 2 && !now.includes(before[0]) && (await readyProcesses(url)).serving === 2
    })
    served = ok
    await sleep(500)
  } catch (err) {
    t.comment(host.output().stdout.slice(-3000), host.output().stderr.slice(-2000))
    throw err
  } finally {
    running = false
    await Promise.all(clients)
  }
  t.ok(failed.length <= 4, `no request lost but those in flight on it (${failed.length}: ${failed.join(', ')})`)
  t.ok(ok > served, 'answers went on after the replacement')
  const metrics = await (await fetch(`${url}/metrics`)).text()
  t.match(metrics, /^aloft_process_restarts_total\{reason="SIGKILL"\} 1$/m, 'the restart is counted')
})

t.test('what a process counted stays in the host\'s counters when it is replaced', async (t) => {
  const host = startHost(t)
  const url = await host.listening
  // a connection each: both processes count some
  for (let k = 0; k < 100; k++) await (await fetch(`${url}/healthz`, { headers: { connection: 'close' } })).text()
  const before = requestsCounted(await (await fetch(`${url}/metrics`)).text())
  const [victim] = await processesOf(host.child.pid!)
  process.kill(victim, 'SIGKILL')
  await waitFor('a replacement serves', async () => (await readyProcesses(url)).serving === 2 &&
    !(await processesOf(host.child.pid!)).includes(victim))
  const after = requestsCounted(await (await fetch(`${url}/metrics`)).text())
  t.ok(after >= before, `never back: ${before} before, ${after} after (Prometheus would read a drop as a reset)`)
})

/** Every request the host's metrics count, whatever its route and status. */
function requestsCounted (text: string): number {
  return [...text.matchAll(/^aloft_http_requests_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0)
}

t.test('/metrics answers for the host: every process\'s requests, summed', async (t) => {
  const host = startHost(t)
  const url = await host.listening
  // a connection each: the primary hands connections to the processes in turn
  for (let k = 0; k < 20; k++) {
    const res = await fetch(`${url}/healthz`, { headers: { connection: 'close' } })
    t.equal(res.status, 200)
  }
  for (let scrape = 0; scrape < 2; scrape++) {
    const text = await (await fetch(`${url}/metrics`, { headers: { connection: 'close' } })).text()
    t.match(text, /^aloft_http_requests_total\{route="healthz",method="GET",status="200"\} 20$/m,
      `scrape ${scrape + 1}: 20, whichever process it reached`)
    t.match(text, /^aloft_processes\{state="serving"\} 2$/m)
  }
})

t.test('SIGTERM drains every process: what each holds is answered, then the host exits 0', async (t) => {
  const upstream = await startUpstream({ root: repoPath('data/sample') })
  t.teardown(() => upstream.close())
  const host = startHost(t, { ALOFT_SOURCE: `filter:${upstream.filterUrl}`, ALOFT_TILE_DEGREES: '0.25' })
  const url = await host.listening
  const key = await newKey(url)
  upstream.fail({ match: /filter_gfs/, mode: { slowMs: 1500 } })
  // cold profiles at four points on four connections: both processes hold some when the signal comes
  const points = [[50.1, 14.4], [52.2, 21], [49.2, 16.6], [54.4, 18.6]]
  const pending = points.map(async ([latitude, longitude]) => {
    const res = await profile(key, url, JSON.stringify({ latitude, longitude, time: '2020-08-04T18:00:00Z',
      altitudes_m: [3000], altitude_reference: 'agl' }))
    return res.status
  })
  await sleep(500)
  const children = await processesOf(host.child.pid!)
  host.child.kill('SIGTERM')
  // as a service manager stopping the whole group does: every process hears it too, and twice
  await sleep(100)
  for (const pid of children) process.kill(pid, 'SIGTERM')
  host.child.kill('SIGTERM')
  t.same(await Promise.all(pending), [200, 200, 200, 200], 'every request in flight answered')
  const [code] = await host.exited
  t.equal(code, 0, 'graceful exit')
  for (const pid of children) t.throws(() => process.kill(pid, 0), `process ${pid} is gone`)
  const stdout = host.output().stdout
  t.equal(stdout.match(/"aloft stopped"/g)?.length, 2, 'both processes stopped gracefully')
  const answeredBy = new Set(stdout.split('\n').filter((l) => l.includes('"path":"/v1/atmosphere/profile"'))
    .map((l) => JSON.parse(l).pid as number))
  t.same([...answeredBy].sort(), [...children].sort(), 'both processes held some of them when the signal came')
})
