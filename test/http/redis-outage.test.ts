// Redis goes away: key-protected routes answer 503 + Retry-After quickly and /readyz says 503 (account_store);
// when it comes back, aloft serves again without a restart.
import t from 'tap'
import { startTestService, expectProblem, untilReady } from '../helpers/service.js'
import { spawnRedis } from '../helpers/redis.js'
import { createStore } from '../../src/accounts/index.js'

const redis = await spawnRedis()
t.teardown(() => redis.stop())
const store = createStore({
  redisUrl: redis.url, prefix: 'outage:', limits: { dailyAllowance: 10, ratePerSecond: 100, rateBurst: 100 }
})
const svc = await startTestService(t, { store })
const { key } = await svc.newAccount()

t.test('with Redis down, requests get a prompt 503 with Retry-After, then recover', async (t) => {
  t.equal((await fetch(`${svc.url}/v1/account`, { headers: { 'x-api-key': key } })).status, 200)
  await redis.stop()

  for (const path of ['/v1/account', '/v1/atmosphere/usage', '/v1/keys']) {
    const started = Date.now()
    const res = await fetch(`${svc.url}${path}`, { headers: { 'x-api-key': key } })
    const elapsed = Date.now() - started
    // by the store's own 1 s timeout, not by waiting for Redis (ten of them tell the two apart on any machine)
    t.ok(elapsed < 10_000, `${path} answered in ${elapsed} ms`)
    t.match(res.headers.get('retry-after'), /^[1-9]\d*$/)
    await expectProblem(t, res, { status: 503, code: 'service_unavailable' })
  }
  const profile = await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{}'
  })
  await expectProblem(t, profile, { status: 503, code: 'service_unavailable' })
  const ready = await fetch(`${svc.url}/readyz`)
  t.equal(ready.status, 503)
  t.match(await ready.json(), { status: 'unavailable', checks: { account_store: 'unavailable' },
    reasons: { account_store: 'the account store is unreachable' } })
  t.equal((await fetch(`${svc.url}/healthz`)).status, 200, 'the process itself is still up')

  const back = await spawnRedis(redis.port)
  t.teardown(() => back.stop())
  // The data did not survive the outage (no persistence): recovery is shown by answers that need
  // Redis again — an unknown key is now a 401, not a 503.
  let status = 0
  for (let i = 0; i < 300 && status !== 401; i++) {
    status = (await fetch(`${svc.url}/v1/account`, { headers: { 'x-api-key': key } })).status
    if (status !== 401) await new Promise((r) => setTimeout(r, 100))
  }
  t.equal(status, 401, 'Redis answers again through the same store')
  t.equal((await untilReady(svc.url)).status, 200, 'ready again')
  const fresh = await svc.newAccount('after the outage')
  t.equal((await fetch(`${svc.url}/v1/account`, { headers: { 'x-api-key': fresh.key } })).status, 200)
})
