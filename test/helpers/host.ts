// A host of two processes (ALOFT_PROCESSES=2) started the way `npm start` does, for the cluster's
// tests: its start, a key, its readiness, and what they look at — which process holds a connection,
// /healthz asked of every process, the host's /metrics asked on a connection of its own.
import type { Test } from 'tap'
import { readFile, readdir, readlink } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { repoPath } from './paths.js'
import { startServe } from './serve-process.js'
import { redisUrl, testPrefix } from './redis.js'
import { get, RawConnection } from './raw-http.js'
import { processesOf } from '../../bench/lib/processes.js'
import { ownerOf } from '../../bench/lib/socket-owner.js'

export const ADMIN = 'host-test-admin-token-0123456789'

export function start (env: Record<string, string>) {
  // NODE_OPTIONS carries tap's coverage hooks into the primary and, through it, every process; the
  // primary's own line (no pid) names how many processes serve
  return startServe({ NODE_OPTIONS: process.env.NODE_OPTIONS ?? '', ALOFT_WORKERS: '1', ALOFT_ADMIN_TOKEN: ADMIN,
    ALOFT_SOURCE: `mirror:${repoPath('data/sample')}`, ALOFT_SHUTDOWN_GRACE_MS: '5000',
    // the clients below call as fast as they can: the rate limit is not what these tests are about
    ALOFT_RATE_PER_SECOND: '1000000', ALOFT_RATE_BURST: '1000000', ...env },
  (l) => l.includes('"aloft listening"') && l.includes('"processes":2') && !l.includes('"pid"'))
}

/** A host of two processes on the shared Redis, under a prefix of the test's own. */
export function startHost (t: Test, env: Record<string, string> = {}) {
  const host = start({ ALOFT_PROCESSES: '2', REDIS_URL: redisUrl(), ALOFT_REDIS_PREFIX: testPrefix(t, 'host'), ...env })
  t.teardown(() => {
    for (const pid of host.child.pid === undefined ? [] : [host.child.pid]) {
      void processesOf(pid).then((children) => { for (const c of children) process.kill(c, 'SIGKILL') })
    }
    host.child.kill('SIGKILL')
  })
  return host
}

export async function newKey (url: string): Promise<string> {
  const made = await fetch(`${url}/v1/admin/accounts`, { method: 'POST', body: '{"name":"host"}',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' } })
  return (await made.json() as { key: { key: string } }).key.key
}

export async function readyProcesses (url: string): Promise<{ serving: number, configured: number }> {
  return (await (await fetch(`${url}/readyz`)).json() as { processes: { serving: number, configured: number } })
    .processes
}


export const profile = (key: string, url: string, body: string): Promise<Response> =>
  fetch(`${url}/v1/atmosphere/profile`,
  { method: 'POST', body, headers: { 'x-api-key': key, 'content-type': 'application/json' } })
export const WARSAW = JSON.stringify({ latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z',
  altitudes_m: [300, 3000], altitude_reference: 'agl' })

/**
 * GET /healthz, each on a connection of its own, `count` of them and more until every one of `pids`
 * has answered at least `least`: how many each answered (a connection's process is found before its
 * request is sent).
 */
export async function healthzOnEvery (port: number, pids: number[], count: number, least = 3):
Promise<Map<number, number>> {
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
export async function connectionsHeld (pid: number, port: number): Promise<string[]> {
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

export const sum = (counts: Map<number, number>): number => [...counts.values()].reduce((a, b) => a + b, 0)

/** The host's /metrics, asked on a connection of its own (fetch could reuse one held by a stalled process). */
export async function scrape (url: string): Promise<string> {
  const c = new RawConnection(Number(new URL(url).port))
  const answer = await c.request(get('/metrics', { connection: 'close' }))
  c.destroy()
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}`)
  return answer.body
}

/** GET /healthz answered 200, as the host's metrics count them. */
export function healthzCount (text: string): number {
  return Number(/^aloft_http_requests_total\{route="healthz",method="GET",status="200"\} (\S+)$/m.exec(text)?.[1] ?? 0)
}
