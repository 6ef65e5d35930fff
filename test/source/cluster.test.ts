// Two Source instances with their own Redis connections share one clustered upstream limiter:
// together they never go faster than the configured rate.
import t from 'tap'
import { Redis } from 'ioredis'
import { createStore, DEFAULT_LIMITS } from '../../src/accounts/index.js'
import type { Resolution } from '../../src/source/index.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { redisUrl, testPrefix } from '../helpers/redis.js'
import { at, harness } from './helpers.js'

const PER_INTERVAL = 5
const INTERVAL_MS = 1000 // → bursts of 2 (half the allowance) once per second across the cluster

t.test('two instances sharing Redis never exceed the clustered upstream rate', async (t) => {
  const prefix = testPrefix(t, 'source-cluster')
  t.teardown(async () => {
    // bottleneck names its keys b_<id>_…; remove this test's limiter
    const redis = new Redis(redisUrl())
    const keys = await redis.keys(`b_${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })
  const { server } = await startSampleUpstream(t, { only: ['gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'] })
  const store = createStore({ redisUrl: redisUrl(), prefix, limits: DEFAULT_LIMITS })
  t.teardown(() => store.close())
  const common = {
    setting: { kind: 'filter' as const, url: server.filterUrl },
    store,
    redisUrl: redisUrl(),
    redisPrefix: prefix,
    upstreamPerMinute: PER_INTERVAL,
    upstreamIntervalMs: INTERVAL_MS,
    upstreamConcurrency: 4
  }
  const a = await harness(t, common)
  const b = await harness(t, common)
  // discovery first (it shares the limiter too), then twelve different tiles, six per instance
  const points = Array.from({ length: 12 }, (_, k) => ({ latitude: 49 + Math.floor(k / 6), longitude: 14 + (k % 6) }))
  const resolved: Array<[typeof a, Resolution]> = []
  for (const [k, p] of points.entries()) {
    const h = k % 2 === 0 ? a : b
    resolved.push([h, await h.source.resolve({
      ...p, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: h.account
    })])
  }
  t.equal(new Set(resolved.map(([, r]) => r.unitKey)).size, 12, 'twelve different units')
  const mark = server.requests.length
  const units = await Promise.all(resolved.map(async ([h, r]) => await h.source.fetch(r, { accountId: h.account })))
  t.equal(units.length, 12)
  const times = server.requests.slice(mark)
    .filter((q) => q.url.startsWith('/cgi-bin/'))
    .map((q) => q.at)
    .sort((x, y) => x - y)
  t.equal(times.length, 12, 'one filter request per unit')
  const burst = Math.floor(PER_INTERVAL / 2)
  for (let k = 0; k + burst < times.length; k++) {
    t.ok(
      times[k + burst] - times[k] >= INTERVAL_MS - 100,
      `no more than ${burst} requests at once across both instances (from request ${k})`
    )
  }
  for (let k = 0; k + PER_INTERVAL < times.length; k++) {
    t.ok(
      times[k + PER_INTERVAL] - times[k] >= INTERVAL_MS - 100,
      `no ${PER_INTERVAL + 1} requests within one interval (from request ${k})`
    )
  }
})

t.test('the limiter\'s Redis down: source_busy in bounded time, no hang', async (t) => {
  const { spawnRedis } = await import('../helpers/redis.js')
  const redis = await spawnRedis()
  t.teardown(() => redis.stop())
  const { server } = await startSampleUpstream(t, { only: ['gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'] })
  const h = await harness(t, {
    setting: { kind: 'mirror', location: server.bucketUrl },
    redisUrl: redis.url,
    redisPrefix: 'test:down:',
    fetch: { retries: 1 }
  })
  const r = await h.source.resolve({
    latitude: 52, longitude: 21, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: h.account
  })
  await redis.stop()
  const started = Date.now()
  const err = await h.source.fetch(r, { accountId: h.account }).then(() => null, (e: unknown) => e)
  t.match(err, { code: 'source_busy' })
  t.ok(Date.now() - started < 10_000, `answered in ${Date.now() - started} ms`)
})
