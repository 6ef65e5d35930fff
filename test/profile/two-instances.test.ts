// Two instances on one Redis and one cache directory fetch each unit once between them: the one
// that takes the unit's lock fetches (and is charged); the other reads the result from the cache.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestService } from '../helpers/service.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { redisUrl, testPrefix } from '../helpers/redis.js'
import { createStore } from '../../src/accounts/index.js'

t.test('concurrent cold requests on two instances: one upstream fetch, one charge', async (t) => {
  const { server } = await startSampleUpstream(t)
  const cacheDir = await mkdtemp(join(tmpdir(), 'aloft-shared-cache-'))
  t.teardown(() => rm(cacheDir, { recursive: true, force: true }))
  const prefix = testPrefix(t, 'two-instances')
  const env = {
    ALOFT_SOURCE: `filter:${server.filterUrl}`,
    ALOFT_CACHE_DIR: cacheDir,
    REDIS_URL: redisUrl(),
    ALOFT_REDIS_PREFIX: prefix
  }
  const limits = { dailyAllowance: 1000, ratePerSecond: 1000, rateBurst: 1000 }
  const stores = [0, 1].map(() => createStore({ redisUrl: redisUrl(), prefix, limits }))
  const [a, b] = [
    await startTestService(t, { env, store: stores[0] }),
    await startTestService(t, { env, store: stores[1] })
  ]
  const { key, accountId } = await a.newAccount()
  // the stand-in answers slowly, so both instances ask while the first fetch is still running
  const slow = server.fail({ match: /filter_gfs_0p25/, mode: { slowMs: 400 } })
  t.teardown(slow)
  const body = JSON.stringify({
    latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [1000], altitude_reference: 'agl'
  })
  const ask = async (url: string): Promise<Record<string, any>> => {
    const res = await fetch(`${url}/v1/atmosphere/profile`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body
    })
    t.equal(res.status, 200)
    return await res.json() as Record<string, any>
  }
  const answers = await Promise.all([a.url, b.url, a.url, b.url, b.url, a.url].map(ask))
  t.equal(server.count(/filter_gfs_0p25\.pl/), 1, 'the unit was fetched once')
  t.ok(answers.every((x) => x.provenance.source_sha256 === answers[0].provenance.source_sha256), 'the same bytes')
  t.equal((await stores[0].allowance(accountId)).upstream_attempts, 1, 'charged once')
})

t.test('a unit one instance fetched is cached for the other: a caller whose allowance is spent is answered',
  async (t) => {
    const { server } = await startSampleUpstream(t)
    const cacheDir = await mkdtemp(join(tmpdir(), 'aloft-shared-cache-'))
    t.teardown(() => rm(cacheDir, { recursive: true, force: true }))
    const prefix = testPrefix(t, 'two-instances-spent')
    const env = { ALOFT_SOURCE: `filter:${server.filterUrl}`, ALOFT_CACHE_DIR: cacheDir, REDIS_URL: redisUrl(),
      ALOFT_REDIS_PREFIX: prefix }
    // one upstream attempt a day: the first fetch spends it
    const limits = { dailyAllowance: 1, ratePerSecond: 1000, rateBurst: 1000 }
    const stores = [0, 1].map(() => createStore({ redisUrl: redisUrl(), prefix, limits }))
    const [a, b] = [
      await startTestService(t, { env, store: stores[0] }),
      await startTestService(t, { env, store: stores[1] })
    ]
    const { key, accountId } = await a.newAccount()
    const post = async (url: string, path: string, body: unknown): Promise<Response> =>
      await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body),
        headers: { 'x-api-key': key, 'content-type': 'application/json' } })
    const profile = { latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [1000],
      altitude_reference: 'agl' }
    const first = await post(a.url, '/v1/atmosphere/profile', profile)
    t.equal(first.status, 200, 'fetched through A')
    const sha = (await first.json() as { provenance: { source_sha256: string } }).provenance.source_sha256
    t.equal((await stores[0].allowance(accountId)).remaining, 0, 'the day\'s one attempt is spent')
    const fetched = server.count(/filter_gfs_0p25\.pl/)
    for (const [name, body] of [['profile', profile], ['profile, immediate', { ...profile, quality: 'immediate' }]]) {
      const res = await post(b.url, '/v1/atmosphere/profile', body)
      t.equal(res.status, 200, `${name} through B: the unit A wrote to the shared directory is cached`)
      const answer = await res.json() as { provenance: { source_sha256: string, substitution?: unknown } }
      t.equal(answer.provenance.source_sha256, sha, 'the same bytes')
    }
    const samples = await post(b.url, '/v1/atmosphere/samples', { altitude_reference: 'agl', interpolation: 'nearest',
      latitude: [52.23], longitude: [21.01], altitude_m: [1000], time: '2020-08-04T18:00:00Z' })
    t.equal(samples.status, 200, `samples through B: not refused for the allowance (${samples.status})`)
    t.equal(server.count(/filter_gfs_0p25\.pl/), fetched, 'nothing fetched again')
    t.equal((await stores[1].allowance(accountId)).upstream_attempts, 1, 'nothing charged again')
  })
