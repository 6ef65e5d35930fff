// The per-account request rate limit on the profile route, and sharing state between instances; public
// mode's per-address bucket of the Tawhiri paths, shared the same way.
import t from 'tap'
import { startTestService, expectProblem } from '../helpers/service.js'
import { testPrefix } from '../helpers/redis.js'

const prefix = testPrefix(t, 'http-rate')
const env = { ALOFT_RATE_PER_SECOND: '0.5', ALOFT_RATE_BURST: '3', ALOFT_PUBLIC_TAWHIRI: 'on',
  ALOFT_PUBLIC_RATE_PER_SECOND: '0.01', ALOFT_PUBLIC_RATE_BURST: '2', ALOFT_TAWHIRI_BURST_WAIT_MS: '0' }
const a = await startTestService(t, { redisPrefix: prefix, env })
const b = await startTestService(t, { redisPrefix: prefix, env })

const body = JSON.stringify({
  latitude: 0, longitude: 0, time: '2020-08-04T18:00:00Z', altitudes_m: [1000], altitude_reference: 'agl'
})
const profile = (url: string, key: string) => fetch(`${url}/v1/atmosphere/profile`, {
  method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body
})

t.test('past the burst a profile request is a 429 rate_limited with Retry-After and RateLimit headers', async (t) => {
  const { key } = await a.newAccount()
  const remaining: string[] = []
  for (let i = 0; i < 3; i++) {
    const res = await profile(a.url, key)
    t.not(res.status, 429, `request ${i + 1} is within the burst`)
    t.equal(res.headers.get('ratelimit-limit'), '3')
    remaining.push(res.headers.get('ratelimit-remaining') ?? '')
  }
  t.same(remaining, ['2', '1', '0'])
  const refused = await profile(a.url, key)
  t.equal(refused.headers.get('ratelimit-limit'), '3')
  t.equal(refused.headers.get('ratelimit-remaining'), '0')
  t.match(refused.headers.get('ratelimit-reset'), /^\d+$/)
  const retry = Number(refused.headers.get('retry-after'))
  t.ok(Number.isInteger(retry) && retry >= 1, `Retry-After is an integer >= 1 (${retry})`)
  t.ok(retry <= 2, 'one request comes back after about 1/rate seconds')
  await expectProblem(t, refused, { status: 429, code: 'rate_limited' })
})

t.test('the rate limit comes before body checks', async (t) => {
  const { key } = await a.newAccount()
  for (let i = 0; i < 3; i++) await profile(a.url, key)
  const res = await fetch(`${a.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'text/plain' }, body: 'x'
  })
  await expectProblem(t, res, { status: 429, code: 'rate_limited' })
})

t.test('every keyed route takes from the same bucket; routes without a key are not limited', async (t) => {
  const { key } = await a.newAccount()
  const statuses: number[] = []
  for (const path of ['/v1/atmosphere/usage', '/v1/account', '/v1/keys', '/v1/atmosphere/usage']) {
    const res = await fetch(`${a.url}${path}`, { headers: { 'x-api-key': key } })
    statuses.push(res.status)
    await res.arrayBuffer()
  }
  t.same(statuses, [200, 200, 200, 429])
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${a.url}/v1/atmosphere/capabilities`)
    t.equal(res.status, 200)
    await res.arrayBuffer()
  }
})

t.test('two instances on one Redis share the rate limit', async (t) => {
  const { key } = await a.newAccount()
  const statuses = [
    (await profile(a.url, key)).status,
    (await profile(b.url, key)).status,
    (await profile(a.url, key)).status,
    (await profile(b.url, key)).status
  ]
  t.same(
    statuses.map((s) => s === 429),
    [false, false, false, true],
    'the fourth request, on either instance, is refused'
  )
})

t.test('two instances on one Redis: a key revoked on one is refused on the other at once', async (t) => {
  const { key } = await a.newAccount()
  const created = await (await fetch(`${a.url}/v1/keys`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"name":"shared"}'
  })).json() as { id: string, key: string }
  t.equal((await fetch(`${b.url}/v1/account`, { headers: { 'x-api-key': created.key } })).status, 200, 'works on b')
  await fetch(`${a.url}/v1/keys/${created.id}`, { method: 'DELETE', headers: { 'x-api-key': key } })
  await expectProblem(
    t,
    await fetch(`${b.url}/v1/account`, { headers: { 'x-api-key': created.key } }),
    { status: 401, code: 'revoked_api_key' }
  )
})

t.test('two instances on one Redis share the daily allowance', async (t) => {
  const { key, accountId } = await a.newAccount()
  await a.store.reserve(accountId)
  await b.store.reserve(accountId)
  const usage = await (
    await fetch(`${b.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })
  ).json() as { upstream_attempts: number }
  t.equal(usage.upstream_attempts, 2)
})

t.test('a public caller\'s bucket is kept in the store: two instances share it', async (t) => {
  const check = async (url: string): Promise<number> => {
    const res = await fetch(`${url}/api/datasetcheck`)
    await res.arrayBuffer()
    return res.status
  }
  t.equal(await check(a.url), 200)
  t.equal(await check(b.url), 200, 'the second of the burst of 2, on the other instance')
  const refused = await fetch(`${a.url}/api/datasetcheck`)
  t.equal(refused.status, 429)
  t.match(await refused.json(), { error: { type: 'RateLimitException' } })
})
