// A drain loses nothing (docs/DESIGN.md §11): from the moment it starts the listening socket is
// closed (a new connection is refused, never reset), every answer says Connection: close (those
// already under way too), a request arriving on a kept-alive connection is answered, not reset, and
// the drain ends once the open connections have ended. One process here; a host of several
// processes in test/cluster/host.test.ts.
import t, { type Test } from 'tap'
import { ADMIN_TOKEN, startTestService } from '../helpers/service.js'
import { get, postHead, RawConnection } from '../helpers/raw-http.js'

const BODY = JSON.stringify({ latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [1000],
  altitude_reference: 'agl' })

async function service (t: Test, env: Record<string, string> = {}) {
  const svc = await startTestService(t, { env: { ALOFT_SHUTDOWN_GRACE_MS: '20000', ...env } })
  return { svc, port: Number(new URL(svc.url).port) }
}

/** A new account's key, asked on a connection of the test's own that closes after (no idle one is left). */
async function newKey (port: number): Promise<string> {
  const body = JSON.stringify({ name: 'drain' })
  const answer = await new RawConnection(port).request(postHead('/v1/admin/accounts', body.length,
    { authorization: `Bearer ${ADMIN_TOKEN}`, connection: 'close' }) + body)
  return (JSON.parse(answer.body) as { key: { key: string } }).key.key
}

t.test('a request on a kept-alive connection during the drain is answered, with Connection: close', async (t) => {
  const { svc, port } = await service(t)
  const idle = new RawConnection(port)
  t.teardown(() => idle.destroy())
  const first = await idle.request(get('/healthz'))
  t.equal(first.headers.connection, 'keep-alive', 'before the drain: kept alive')
  const drained = svc.close()
  const during = await idle.request(get('/healthz'))
  t.equal(during.status, 200, 'answered, not reset')
  t.equal(during.headers.connection, 'close')
  t.equal(await idle.ended, 'closed', 'then closed by the server, after its answer')
  await drained
})

t.test('an answer already under way when the drain starts says Connection: close', async (t) => {
  const { svc, port } = await service(t)
  const key = await newKey(port)
  const busy = new RawConnection(port)
  t.teardown(() => busy.destroy())
  // the head is read and the request counted; the body comes after the drain has begun
  busy.write(postHead('/v1/atmosphere/profile', Buffer.byteLength(BODY), { 'x-api-key': key }))
  await waitUntil(() => svc.app.inFlight() === 1)
  const drained = svc.close()
  const answer = await busy.request(BODY)
  t.equal(answer.status, 200, 'the request in flight is answered')
  t.equal(answer.headers.connection, 'close', 'and asks its client to close the connection')
  t.equal(await busy.ended, 'closed')
  await drained
})

t.test('the listening socket closes first: a new connection is refused at once', async (t) => {
  const { svc, port } = await service(t)
  const held = new RawConnection(port)
  t.teardown(() => held.destroy())
  await held.request(get('/healthz'))
  const drained = svc.close()
  const late = new RawConnection(port)
  t.equal(await late.ended, 'refused', 'refused while a kept-alive connection still holds the drain open')
  t.equal(held.state, 'open', 'the kept-alive connection is still open')
  held.destroy()
  await drained
})

t.test('the drain ends when the kept-alive connections have ended: an idle one at its keep-alive timeout',
  async (t) => {
    const { svc, port } = await service(t, { ALOFT_KEEP_ALIVE_TIMEOUT_MS: '300' })
    const idle = new RawConnection(port)
    await idle.request(get('/healthz'))
    const order: string[] = []
    void idle.ended.then((how) => order.push(`connection ${how}`))
    await svc.close().then(() => order.push('drained'))
    t.same(order, ['connection closed', 'drained'], 'the idle connection ended first, by its own timeout')
  })

t.test('a drain that outlasts its grace period closes what remains and says so', async (t) => {
  const { svc, port } = await service(t, { ALOFT_SHUTDOWN_GRACE_MS: '200', ALOFT_KEEP_ALIVE_TIMEOUT_MS: '60000' })
  const idle = new RawConnection(port)
  await idle.request(get('/healthz'))
  await svc.close()
  t.equal(await idle.ended, 'closed')
  t.ok(svc.logs.some((l) => l.includes('shutdown grace ended')), 'logged')
})

/** Polls `check` every 5 ms (an order of events, not a time bound: it ends when the test's own timeout does). */
async function waitUntil (check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5))
}
