// A host served by several processes (ALOFT_PROCESSES, docs/DESIGN.md §11), started the way
// `npm start` does: the primary replaces a process that dies while the port keeps answering, drains
// every process on SIGTERM, answers /metrics and /readyz for the whole host, refuses to start
// without Redis and ends with the exit code of a start-up that failed in its processes.
import t, { type Test } from 'tap'
import { readFile, readdir, readlink } from 'node:fs/promises'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { repoPath } from '../helpers/paths.js'
import { startServe } from '../helpers/serve-process.js'
import { redisUrl, testPrefix } from '../helpers/redis.js'
import { processesOf, waitFor } from '../../bench/lib/processes.js'
import { dropsBetween } from '../../bench/lib/metrics-text.js'
import { get, postHead, RawConnection } from '../helpers/raw-http.js'
import { ownerOf } from '../../bench/lib/socket-owner.js'

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

/**
 * GET /healthz, each on a connection of its own, `count` of them and more until every one of `pids`
 * has answered at least `least`: how many each answered (a connection's process is found before its
 * request is sent).
 */
async function healthzOnEvery (port: number, pids: number[], count: number, least = 3): Promise<Map<number, number>> {
  const answered = new Map<number, number>(pids.map((p) => [p, 0]))
  for (let k = 0; k < count || [...answered.values()].some((n) => n < least); k++) {
    if (k > 20 * count) throw new Error(`the processes did not all answer: ${JSON.stringify([...answered])}`)
    const c = new RawConnection(port)
    await c.opened
    let owner: number | undefined
    while ((owner = await ownerOf(c.socket.localPort!, pids)) === undefined) await sleep(5)
    const answer = await c.request(get('/healthz', { connection: 'close' }))
    if (answer.status !== 200) throw new Error(`healthz answered ${answer.status}`)
    answered.set(owner, (answered.get(owner) ?? 0) + 1)
    c.destroy()
  }
  return answered
}

/** The port's TCP connections (not its listening socket) whose socket `pid` holds, by /proc/net/tcp state. */
async function connectionsHeld (pid: number, port: number): Promise<string[]> {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
  const states = new Map<string, string>()
  for (const line of (await readFile('/proc/net/tcp', 'utf8')).split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f[1]?.endsWith(local) && f[3] !== '0A') states.set(f[9], f[3]) // 0A: LISTEN
  }
  const held: string[] = []
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const inode = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''))?.[1]
    const state = inode === undefined ? undefined : states.get(inode)
    if (state !== undefined) held.push(`fd ${fd} in TCP state ${state}`)
  }
  return held
}

const sum = (counts: Map<number, number>): number => [...counts.values()].reduce((a, b) => a + b, 0)

t.test('a process killed with SIGKILL leaves no connection unanswered: each is answered, refused or reset at once',
  async (t) => {
    const host = startHost(t)
    const url = await host.listening
    const port = Number(new URL(url).port)
    const [victim] = await processesOf(host.child.pid!)
    // 8 clients, a new connection for every request, as the kill comes
    const outcomes: string[] = []
    let running = true
    const clients = Array.from({ length: 8 }, async () => {
      while (running) {
        const c = new RawConnection(port)
        let hung = false
        const timer = setTimeout(() => { hung = true; c.destroy() }, 5000)
        const answer = await c.request(get('/healthz', { connection: 'close' })).catch(() => null)
        outcomes.push(hung ? 'unanswered for 5 s' : answer === null ? c.state : String(answer.status))
        clearTimeout(timer)
        c.destroy()
      }
    })
    await waitFor('answers before the kill', async () => outcomes.length >= 200)
    process.kill(victim, 'SIGKILL')
    const killedAt = outcomes.length
    await waitFor('answers after the kill', async () => outcomes.length >= killedAt + 200)
    running = false
    await Promise.all(clients)
    const failed = outcomes.filter((o) => o !== '200')
    t.same(failed.filter((o) => !['reset', 'closed', 'refused'].includes(o)), [],
      `every request answered, reset or refused (${outcomes.length} asked; ${failed.join(', ') || 'none failed'})`)
    t.same(await connectionsHeld(host.child.pid!, port), [], 'the primary holds no connection of the port')
  })

t.test('what a process counted stays in the host\'s counters when it is replaced, counted once', async (t) => {
  const host = startHost(t)
  const url = await host.listening
  const port = Number(new URL(url).port)
  const pids = await processesOf(host.child.pid!)
  const answered = await healthzOnEvery(port, pids, 40)
  const total = sum(answered)
  const before = await scrape(url)
  t.equal(healthzCount(before), total, `${total} answered (${[...answered.values()].join(' + ')}), ${total} counted`)
  const [victim] = pids
  process.kill(victim, 'SIGKILL')
  await waitFor('a replacement serves', async () => (await readyProcesses(url)).serving === 2 &&
    !(await processesOf(host.child.pid!)).includes(victim))
  const after = await scrape(url)
  t.equal(healthzCount(after), total, 'the dead process\'s share is kept, and counted once')
  t.same(dropsBetween(before, after), [], 'no counter or histogram series went back (Prometheus would read a reset)')
})

t.test('a process that stalls: the host counts its share as last heard, every request once, never lower', async (t) => {
  const host = startHost(t)
  const url = await host.listening
  const port = Number(new URL(url).port)
  const pids = await processesOf(host.child.pid!)
  const first = await healthzOnEvery(port, pids, 30)
  const scrapes = [await scrape(url)]
  const [victim] = pids
  process.kill(victim, 'SIGSTOP')
  let stopped = true
  t.teardown(() => { if (!stopped) return; process.kill(victim, 'SIGCONT') })
  const stalledAt = Date.now()
  // while it stalls the other answers (the stalled one accepts nothing), and scrapes wait for it in vain
  const more = await healthzOnEvery(port, pids.filter((p) => p !== victim), 10, 10)
  scrapes.push(await scrape(url))
  while (Date.now() - stalledAt < 5000) scrapes.push(await scrape(url))
  process.kill(victim, 'SIGCONT')
  stopped = false
  scrapes.push(await scrape(url))
  const total = sum(first) + sum(more)
  for (const [k, text] of scrapes.entries()) {
    const expected = k === 0 ? sum(first) : total
    t.equal(healthzCount(text), expected, `scrape ${k + 1}: every answer counted once`)
    if (k > 0) t.same(dropsBetween(scrapes[k - 1], text), [], `scrape ${k + 1}: no series lower than before`)
  }
})

/** The host's /metrics, asked on a connection of its own (fetch could reuse one held by a stalled process). */
async function scrape (url: string): Promise<string> {
  const c = new RawConnection(Number(new URL(url).port))
  const answer = await c.request(get('/metrics', { connection: 'close' }))
  c.destroy()
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}`)
  return answer.body
}

/** GET /healthz answered 200, as the host's metrics count them. */
function healthzCount (text: string): number {
  return Number(/^aloft_http_requests_total\{route="healthz",method="GET",status="200"\} (\S+)$/m.exec(text)?.[1] ?? 0)
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

t.test('SIGTERM drains every process: what each holds is answered with Connection: close, new connections refused, ' +
  'then the host exits 0', async (t) => {
  // idle connections of the test's own fetch end soon after; the drain waits for them
  const host = startHost(t, { ALOFT_KEEP_ALIVE_TIMEOUT_MS: '1000' })
  const url = await host.listening
  const port = Number(new URL(url).port)
  const key = await newKey(url)
  const pids = await processesOf(host.child.pid!)
  const body = JSON.stringify({ latitude: 52.2, longitude: 21, time: '2020-08-04T18:00:00Z', altitudes_m: [3000],
    altitude_reference: 'agl' })
  // on each process: a request in flight (its body not yet sent) and an idle kept-alive connection
  const busy = new Map<number, RawConnection>()
  const idle = new Map<number, RawConnection>()
  for (let k = 0; busy.size < pids.length || idle.size < pids.length; k++) {
    if (k > 200) throw new Error('connections did not reach both processes')
    const c = new RawConnection(port)
    t.teardown(() => c.destroy())
    await c.opened
    let owner: number | undefined
    while ((owner = await ownerOf(c.socket.localPort!, pids)) === undefined) await sleep(5)
    if (!busy.has(owner)) {
      c.write(postHead('/v1/atmosphere/profile', Buffer.byteLength(body), { 'x-api-key': key }))
      busy.set(owner, c)
    } else if (!idle.has(owner)) {
      t.equal((await c.request(get('/healthz'))).headers.connection, 'keep-alive')
      idle.set(owner, c)
    } else {
      c.destroy()
    }
  }
  await sleep(100) // the heads read: the requests are in flight
  host.child.kill('SIGTERM')
  // as a service manager stopping the whole group does: every process hears it too, and twice
  await sleep(100)
  for (const pid of pids) process.kill(pid, 'SIGTERM')
  host.child.kill('SIGTERM')
  // once both have begun to drain, a new connection is answered (a process may still have accepted it) or
  // refused, never reset
  await waitFor('both processes draining', async () =>
    host.output().stdout.split('\n').filter((l) => l.includes('"shutting down"') && l.includes('"pid"')).length >= 2)
  const probes: string[] = []
  for (;;) {
    const probe = new RawConnection(port)
    const answer = await probe.request(get('/healthz')).catch(() => null)
    probe.destroy()
    probes.push(answer === null ? probe.state : `${answer.status} ${answer.headers.connection}`)
    if (answer === null) break
  }
  t.same(probes.slice(-1), ['refused'], `refused in the end (${probes.join(', ')})`)
  t.same(probes.filter((p) => !['refused', '200 close'].includes(p)), [], 'no probe was reset or kept alive')
  for (const [pid, c] of idle) {
    const answer = await c.request(get('/healthz'))
    t.same([answer.status, answer.headers.connection], [200, 'close'], `process ${pid}: a kept-alive connection's ` +
      'next request is answered, with Connection: close')
  }
  for (const [pid, c] of busy) {
    const answer = await c.request(body)
    t.same([answer.status, answer.headers.connection], [200, 'close'], `process ${pid}: the request under way is ` +
      'answered, with Connection: close')
  }
  const [code] = await host.exited
  t.equal(code, 0, 'graceful exit')
  for (const pid of pids) t.throws(() => process.kill(pid, 0), `process ${pid} is gone`)
  t.equal(host.output().stdout.match(/"aloft stopped"/g)?.length, 2, 'both processes stopped gracefully')
})
