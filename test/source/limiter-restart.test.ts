// The upstream limiter shared through Redis recovers by itself when Redis is killed and restarted
// while fetches are running: their lost `done` calls do not hold the limiter's slots forever.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { spawnRedis } from '../helpers/redis.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { at, harness } from './helpers.js'
import { Throttle } from '../../src/source/adapters/throttle.js'

const P = { latitude: 52.2, longitude: 21.0, quality: 'best_available' as const }

t.test('cold fetches work again soon after Redis is killed and restarted mid-fetch', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'aloft-redis-aof-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  let redis = await spawnRedis(undefined, { persistDir: dir })
  t.teardown(() => redis.stop())
  const { server } = await startSampleUpstream(t)
  const h = await harness(t, {
    setting: { kind: 'mirror', location: server.bucketUrl },
    redisUrl: redis.url,
    redisPrefix: 'restart:',
    upstreamConcurrency: 2,
    requestTimeoutMs: 1500,
    fetchDeadlineMs: 2500,
    fetch: { retries: 0 }
  })
  const resolveAt = async (time: string) => await h.source.resolve({ ...P, time: at(time), accountId: h.account })
  const busy = [await resolveAt('2020-07-21T12:00:00Z'), await resolveAt('2020-07-22T06:00:00Z')]
  const later = [await resolveAt('2020-07-28T12:00:00Z'), await resolveAt('2020-08-15T12:00:00Z')]
  const slow = server.fail({ match: /^\/gfs\.2020072[12]/, mode: { slowMs: 1000 } })
  t.teardown(slow)

  // both limiter slots are taken by fetches that will finish while Redis is away
  const inFlight = busy.map(async (r) => await h.source.fetch(r, { accountId: h.account }).catch((err) => err))
  await sleep(300)
  await redis.stop()
  await Promise.all(inFlight)
  redis = await spawnRedis(redis.port, { persistDir: dir })
  slow()

  // within a bounded time every later cold fetch is served again
  const started = Date.now()
  let served = 0
  for (const r of later) {
    for (;;) {
      const got = await h.source.fetch(r, { accountId: h.account }).catch((err: Error) => err)
      if (!(got instanceof Error)) { served++; break }
      if (Date.now() - started > 15_000) break
      await sleep(250)
    }
  }
  const recovered = Date.now() - started
  t.equal(served, later.length, `every later unit was fetched (after ${recovered} ms)`)
  t.ok(recovered < 15_000)
})

for (const persistent of [true, false]) {
  t.test(`cold fetches work again after Redis was away longer than the limiter's client timeout ` +
    `(${persistent ? 'persistent' : 'no persistence'})`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'aloft-redis-aof-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const options = persistent ? { persistDir: dir } : {}
    let redis = await spawnRedis(undefined, options)
    t.teardown(() => redis.stop())
    const { server } = await startSampleUpstream(t)
    const h = await harness(t, {
      setting: { kind: 'mirror', location: server.bucketUrl },
      redisUrl: redis.url,
      redisPrefix: 'away:',
      limiterClientTimeoutMs: 900,
      requestTimeoutMs: 1500,
      fetchDeadlineMs: 2500,
      fetch: { retries: 1, backoffMs: 100 }
    })
    const resolveAt = async (time: string) => await h.source.resolve({ ...P, time: at(time), accountId: h.account })
    const before = await resolveAt('2020-07-21T12:00:00Z')
    const later = await resolveAt('2020-07-28T12:00:00Z')
    await h.source.fetch(before, { accountId: h.account }) // the limiter is registered in Redis
    await redis.stop()
    await sleep(2500) // three client timeouts: the others would take this client for dead
    redis = await spawnRedis(redis.port, options)
    // another instance joins: its scripts find this client's registration stale and drop it
    const other = new Throttle({ redisUrl: redis.url, id: 'away:{upstream}', clientTimeoutMs: 900, maxConcurrent: 2 })
    t.teardown(() => other.close())
    await other.ready()
    t.equal(await other.schedule(async () => 'ran', 1000), 'ran')
    const started = Date.now()
    let got: unknown
    for (;;) {
      got = await h.source.fetch(later, { accountId: h.account }).catch((err: Error) => err)
      if (!(got instanceof Error) || Date.now() - started > 15_000) break
      await sleep(250)
    }
    t.notOk(got instanceof Error, `served again after ${Date.now() - started} ms`)
    t.ok(Date.now() - started < 15_000)
  })
}
