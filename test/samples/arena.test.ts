// Reused shared memory for large samples requests: arrays handed out zeroed whatever the buffer
// held before, a full buffer falling back to fresh arrays, a released buffer reused by the next
// request; and over HTTP, answers that never depend on what an earlier request left in it.
import t from 'tap'
import { request } from 'node:http'
import { ArenaArrays, arenaFor, idleArenas, ARENA_BYTES_PER_POINT } from '../../src/samples/arena.js'
import { startTestService, type TestService } from '../helpers/service.js'

t.test('arrays come zeroed, 8-aligned, one after the other; past the end, fresh ones', async (t) => {
  const buffer = new SharedArrayBuffer(64)
  new Uint8Array(buffer).fill(0xff)
  const arena = new ArenaArrays(buffer)
  const a = arena.uint8(3)
  const b = arena.float64(2)
  const c = arena.int32(3)
  t.same([...a], [0, 0, 0], 'bytes zeroed')
  t.same([...b], [0, 0], 'doubles zeroed (and +0, not −0)')
  t.ok(Object.is(b[0], 0))
  t.same([...c], [0, 0, 0])
  t.equal(a.buffer, buffer)
  t.equal(b.byteOffset, 8, 'the doubles start at the next multiple of 8')
  t.equal(c.byteOffset, 24)
  t.equal(c.buffer, buffer)
  const d = arena.float64(5) // 40 bytes at 40: past the end
  t.not(d.buffer, buffer, 'a fresh buffer when the arena is full')
  t.ok(d.buffer instanceof SharedArrayBuffer, 'still shared memory, for the pool')
  t.equal(d.length, 5)
  const e = arena.uint8(16) // still fits after the refusal
  t.equal(e.buffer, buffer)
  t.equal(e.byteOffset, 40)
})

t.test('a released buffer goes to the next request large enough, and a released arena hands out fresh arrays',
  async (t) => {
    const points = 1000
    const first = arenaFor(points)
    const x = first.float64(10)
    x.fill(7)
    const before = idleArenas().buffers
    first.release()
    first.release() // idempotent
    t.equal(idleArenas().buffers, before + 1, 'kept once')
    const fresh = first.float64(4)
    t.not(fresh.buffer, x.buffer, 'nothing more comes out of a released arena')
    const second = arenaFor(points)
    t.equal(idleArenas().buffers, before, 'taken back')
    const y = second.float64(10)
    t.equal(y.buffer, x.buffer, 'the same memory')
    t.same([...y], new Array(10).fill(0), 'zeroed again')
    t.ok(x.buffer.byteLength >= points * ARENA_BYTES_PER_POINT)
    const larger = arenaFor(1_000_000)
    t.not(larger.uint8(1).buffer, x.buffer, 'a smaller idle buffer is not used for a larger request')
    second.release()
    // at most two idle buffers are kept: the largest
    const extra = [arenaFor(10), arenaFor(10), arenaFor(10)]
    for (const a of extra) a.release()
    t.ok(idleArenas().buffers <= 2)
  })

async function post (svc: TestService, key: string, body: unknown): Promise<string> {
  const res = await fetch(`${svc.url}/v1/atmosphere/samples`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  t.equal(res.status, 200)
  return await res.text()
}

t.test('over HTTP on the pool: a request answers the same after others used (and released) its memory',
  async (t) => {
    const svc = await startTestService(t, { env: { ALOFT_SAMPLES_WORKER_POINTS: '100', ALOFT_WORKERS: '2',
      ALOFT_RATE_BURST: '100', ALOFT_RATE_PER_SECOND: '100' } })
    const { key } = await svc.newAccount()
    const n = 3000
    const request = (shift: number, time: string): unknown => ({
      latitude: Array.from({ length: n }, (_, k) => 48.2 + ((k * 7 + shift) % 300) * 0.025),
      longitude: Array.from({ length: n }, (_, k) => 13.2 + ((k * 13 + shift) % 450) * 0.025),
      altitude_m: Array.from({ length: n }, (_, k) => ((k + shift) % 90) * 200),
      time, altitude_reference: 'agl'
    })
    // the second request leaves other statuses, units and values behind in the memory the third reuses
    const a = request(0, '2020-08-04T15:00:00Z')
    const first = await post(svc, key, a)
    const other = await post(svc, key, { ...(request(11, '2020-08-04T19:30:00Z') as object),
      out_of_column: 'nearest_level' })
    t.not(other, first)
    t.ok(idleArenas().buffers >= 1, 'the memory went back once answered')
    t.equal(await post(svc, key, a), first, 'the same bytes')
    const outside = await post(svc, key, { ...(request(0, '2020-08-04T15:00:00Z') as object),
      latitude: new Array(n).fill(-89) })
    t.match(outside, /outside_source_coverage/)
    t.equal(await post(svc, key, a), first, 'the same bytes after a request of failed points')
  })

/** An n-point JSON request over the sample region. */
function spread (n: number): unknown {
  return {
    latitude: Array.from({ length: n }, (_, k) => 48.2 + ((k * 7) % 300) * 0.025),
    longitude: Array.from({ length: n }, (_, k) => 13.2 + ((k * 13) % 450) * 0.025),
    altitude_m: Array.from({ length: n }, (_, k) => (k % 90) * 200),
    time: '2020-08-04T15:00:00Z', altitude_reference: 'agl'
  }
}

t.test('a JSON answer formatted on the pool: the same bytes and length as one formatted in place', async (t) => {
  const pooled = await startTestService(t, { env: { ALOFT_SAMPLES_WORKER_POINTS: '100', ALOFT_WORKERS: '2' } })
  const inPlace = await startTestService(t)
  const answer = async (svc: TestService): Promise<Response> => {
    const { key } = await svc.newAccount()
    return await fetch(`${svc.url}/v1/atmosphere/samples`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(spread(3000))
    })
  }
  const a = await answer(pooled)
  const b = await answer(inPlace)
  t.equal(a.status, 200)
  const text = await a.text()
  t.equal(a.headers.get('content-length'), String(Buffer.byteLength(text)), 'its length')
  t.equal(b.headers.get('content-length'), a.headers.get('content-length'))
  // each service fetched its own copy of the data: only the times they did so differ
  const unfetched = (answer: string): string => answer.replace(/"retrieved_at":"[^"]*"/g, '"retrieved_at":"…"')
  t.equal(unfetched(await b.text()), unfetched(text), 'the same bytes')
  t.equal((JSON.parse(text) as { count: number }).count, 3000)
})

t.test('a client gone in the middle of a pooled JSON answer: the memory goes back, and the next answer is whole',
  async (t) => {
    const svc = await startTestService(t, { env: { ALOFT_SAMPLES_WORKER_POINTS: '100', ALOFT_WORKERS: '2' } })
    const { key } = await svc.newAccount()
    const whole = await post(svc, key, spread(30_000))
    const idle = idleArenas().buffers
    // take the memory that was idle, then leave after the first bytes of ~7 MB (more than the socket holds)
    const body = JSON.stringify(spread(30_000))
    await new Promise<void>((resolve, reject) => {
      const req = request(`${svc.url}/v1/atmosphere/samples`, {
        method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }
      }, (res) => {
        res.once('data', () => { req.destroy(); resolve() })
      })
      req.on('error', (err) => { if (!req.destroyed) reject(err) })
      req.end(body)
    })
    let waited = 0
    while (idleArenas().buffers < idle && waited < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      waited += 20
    }
    t.equal(idleArenas().buffers, idle, 'the memory went back')
    t.equal(await post(svc, key, spread(30_000)), whole, 'the next answer is whole and the same')
  })
