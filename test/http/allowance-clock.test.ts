// The allowance follows the UTC day: with an injected clock, usage counts down to 00:00 UTC
// and starts again after it.
import t from 'tap'
import { startTestService } from '../helpers/service.js'
import { testPrefix } from '../helpers/redis.js'

let now = Date.parse('2026-03-01T23:59:30Z')
const prefix = testPrefix(t, 'http-allowance-clock')
const svc = await startTestService(t, { redisPrefix: prefix, env: { ALOFT_DAILY_ALLOWANCE: '2' }, now: () => now })

t.test('usage counts down to 00:00 UTC and resets after it', async (t) => {
  const { key, accountId } = await svc.newAccount()
  t.equal((await svc.store.reserve(accountId, now)).ok, true)
  t.equal((await svc.store.reserve(accountId, now)).ok, true)
  const refused = await svc.store.reserve(accountId, now)
  t.equal(refused.ok, false, 'the third attempt of the day is refused')
  if (!refused.ok) t.equal(refused.retry_after_seconds, 30, 'retry after the reset')
  const before = await (
    await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })
  ).json() as Record<string, number>
  t.match(before, { upstream_attempts: 2, remaining: 0, reset_after_seconds: 30 })
  now += 29_000
  const last = await (
    await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })
  ).json() as Record<string, number>
  t.equal(last.reset_after_seconds, 1, 'one second before midnight')
  now = Date.parse('2026-03-02T00:00:00Z')
  const after = await (
    await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })
  ).json() as Record<string, number>
  t.match(after, { upstream_attempts: 0, remaining: 2, reset_after_seconds: 86400 })
})
