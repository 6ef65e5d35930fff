// A host served by several processes (ALOFT_PROCESSES, docs/DESIGN.md §11), started the way
// `npm start` does: it refuses to start without Redis, ends with the exit code of a start-up that
// failed in its processes, and drains every process on SIGTERM. A process that dies or stalls:
// test/cluster/host-replace.test.ts.
import t from 'tap'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { processesOf, waitFor } from '../../bench/lib/processes.js'
import { ownerOf } from '../../bench/lib/socket-owner.js'
import { get, postHead, RawConnection } from '../helpers/raw-http.js'
import { newKey, start, startHost } from '../helpers/host.js'

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
