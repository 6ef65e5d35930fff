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
