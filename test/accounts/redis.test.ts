// The store contract against Redis, plus what sharing one Redis between instances promises.
import t, { type Test } from 'tap'
import { type AccountLimits, createStore, DEFAULT_LIMITS, KeyLayout, RedisStore } from '../../src/accounts/index.js'
import { dumpPrefix, redisUrl, testPrefix } from '../helpers/redis.js'
import { storeContract } from './store-contract.js'

const url = redisUrl()
const limits = (over: Partial<AccountLimits> = {}): AccountLimits => ({ ...DEFAULT_LIMITS, ...over })

storeContract(t, async (t, limits) => {
  const prefix = testPrefix(t, 'redis-contract', url)
  const store = createStore({ redisUrl: url, prefix, limits })
  t.teardown(() => store.close())
  return { store, stored: async () => [...(await dumpPrefix(url, prefix))].join('\n') }
})

/** Two stores on one Redis and one prefix, each with its own connection: two instances. */
function twoInstances (t: Test, over: Partial<AccountLimits> = {}): [RedisStore, RedisStore, string] {
  const prefix = testPrefix(t, 'redis-shared', url)
  const a = new RedisStore({ url, prefix, limits: limits(over) })
  const b = new RedisStore({ url, prefix, limits: limits(over) })
  t.teardown(async () => { await a.close(); await b.close() })
  return [a, b, prefix]
}

t.test('createStore with a Redis URL makes the Redis store', async (t) => {
  const store = createStore({ redisUrl: url, prefix: testPrefix(t, 'redis-kind', url), limits: DEFAULT_LIMITS })
  t.teardown(() => store.close())
  t.equal(store.kind, 'redis')
})

t.test('every key the store writes lives under its prefix', async (t) => {
  const [store, , prefix] = twoInstances(t)
  const account = await store.createAccount('a')
  const { record } = await store.createKey(account.id, 'k')
  const { record: revoked } = await store.createKey(account.id, 'revoked')
  await store.revokeKey(account.id, revoked.id)
  await store.reserve(account.id)
  await store.takeRequest(account.id)
  const keys = [...(await dumpPrefix(url, prefix)).keys()].sort()
  const layout = new KeyLayout(prefix)
  const a = account.id
  const secretHashes = keys.filter((k) => k.includes('key_hash:')).map((k) => k.split('key_hash:')[1])
  t.same(keys, [
    layout.layout, layout.account(a), layout.keys(a), layout.keySeq(a), layout.liveKeys(a), layout.revoked(a),
    layout.key(a, record.id), layout.key(a, revoked.id), layout.allowance(a), layout.rate(a),
    ...secretHashes.map((h) => layout.keyHash(h)), layout.keyOwner(record.id), layout.keyOwner(revoked.id)
  ].sort(), 'exactly the documented keys')
  t.equal(secretHashes.length, 2)
  for (const k of keys) {
    if (k.includes(`{${a}}`)) t.ok(k.startsWith(`${prefix}{${a}}:`), `${k}: the account's hash tag comes first`)
  }
})

t.test('a key revoked through one instance is refused by another at once', async (t) => {
  const [a, b] = twoInstances(t)
  const account = await a.createAccount('a')
  const { record, secret } = await a.createKey(account.id, 'k')
  t.match(await b.authenticate(secret), { ok: true }, 'the other instance accepts the live key')
  await a.revokeKey(account.id, record.id)
  t.same(await b.authenticate(secret), { ok: false, reason: 'revoked_api_key' })
})

t.test('concurrent reserves across instances never exceed the allowance', async (t) => {
  const [a, b] = twoInstances(t, { dailyAllowance: 50 })
  const account = await a.createAccount('a')
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).reserve(account.id)))
  t.equal(results.filter((r) => r.ok).length, 50)
  t.match(await b.allowance(account.id), { upstream_attempts: 50, remaining: 0 })
})

t.test('the rate limit is shared by the instances', async (t) => {
  const [a, b] = twoInstances(t, { ratePerSecond: 1, rateBurst: 10 })
  const account = await a.createAccount('a')
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).takeRequest(account.id)))
  t.equal(results.filter((r) => r.allowed).length, 10)
  t.match(await a.takeRequest(account.id), { allowed: false })
  t.match(await b.takeRequest(account.id), { allowed: false })
})
