// Unit locks in Redis: one holder at a time, released only by its holder, expiring on their own
// so a holder that died does not stop the others for longer than the lock's time.
import t from 'tap'
import { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { RedisUnitLocks } from '../../src/source/fetch/unit-locks.js'
import { redisUrl, testPrefix } from '../helpers/redis.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { at, harness } from './helpers.js'

const redis = new Redis(redisUrl())
t.teardown(() => redis.quit())

t.test('one holder; only it releases; an abandoned lock expires', async (t) => {
  const prefix = testPrefix(t, 'locks')
  const a = new RedisUnitLocks(redis, prefix, (err) => { throw err })
  const b = new RedisUnitLocks(redis, prefix, (err) => { throw err })
  t.ok(await a.acquire('gfs/2020080412/f006', 300))
  t.notOk(await b.acquire('gfs/2020080412/f006', 300), 'taken')
  t.ok(await b.held('gfs/2020080412/f006'))
  await b.release('gfs/2020080412/f006')
  t.ok(await a.held('gfs/2020080412/f006'), 'another instance cannot release it')
  await sleep(350)
  t.notOk(await b.held('gfs/2020080412/f006'), 'expired')
  t.ok(await b.acquire('gfs/2020080412/f006', 300))
  await b.release('gfs/2020080412/f006')
  t.notOk(await a.held('gfs/2020080412/f006'), 'released by its holder')
})

t.test('unreachable Redis: the lock is taken as granted and said so', async (t) => {
  const dead = new Redis('redis://127.0.0.1:1',
    { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false })
  dead.on('error', () => {})
  const told: unknown[] = []
  const locks = new RedisUnitLocks(dead, 'x:', (err) => told.push(err))
  t.ok(await locks.acquire('k', 1000))
  t.notOk(await locks.held('k'))
  await locks.release('k')
  t.equal(told.length, 3)
  dead.disconnect()
})

t.test('a fetch waiting on a holder that died takes the fetch over when the lock expires', async (t) => {
  const prefix = testPrefix(t, 'locks-takeover')
  const { server } = await startSampleUpstream(t)
  const h = await harness(t, {
    setting: { kind: 'mirror',
      location: server.bucketUrl }, redisUrl: redisUrl(), redisPrefix: prefix, fetchDeadlineMs: 5000
  })
  const r = await h.source.resolve({ latitude: 52.2, longitude: 21, time: at('2020-08-04T12:00:00Z'),
    quality: 'best_available', accountId: h.account })
  const ghost = new RedisUnitLocks(redis, prefix, (err) => { throw err })
  t.ok(await ghost.acquire(r.unitKey, 600), 'another instance took the lock and died')
  const started = Date.now()
  const unit = await h.source.fetch(r, { accountId: h.account })
  const waited = Date.now() - started
  t.equal(unit.fromCache, false, 'fetched by this instance')
  // it waited for the lock (600 ms) rather than ignoring it; had it not taken the fetch over, it would have
  // given up at its deadline with source_busy
  t.ok(waited >= 500, `after the lock expired (${waited} ms)`)
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 1)
})
