// What the Redis store does about durability: it moves data of the old key layout to the
// hash-tagged one without losing any, warns when Redis persists nothing, and says so loudly when
// Redis comes back without aloft's data.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { DEFAULT_LIMITS, KeyLayout, RedisStore } from '../../src/accounts/index.js'
import { newSecret } from '../../src/accounts/secrets.js'
import { dumpPrefix, redisUrl, spawnRedis, testPrefix } from '../helpers/redis.js'
import { startTestService, untilReady } from '../helpers/service.js'

t.test('accounts of the old key layout are moved, and still work', async (t) => {
  const url = redisUrl()
  const p = testPrefix(t, 'layout1')
  const raw = new Redis(url)
  t.teardown(() => raw.quit())
  // what aloft 0.1 wrote: P account:ID, P account:ID:keys, P key:ID, P key_hash:SHA → key id, P key_seq, …
  const acct = 'acct_AAAAAAAAAAAAAAAA'
  const keys = [{ id: 'key_BBBBBBBBBBBBBBBB', ...newSecret() }, { id: 'key_CCCCCCCCCCCCCCCC', ...newSecret() }]
  await raw.hset(`${p}account:${acct}`, { id: acct, name: 'old team', created_at: '1700000000' })
  for (const [n, k] of keys.entries()) {
    await raw.hset(`${p}key:${k.id}`, {
      id: k.id, account_id: acct, prefix: k.prefix, name: `k${n}`, created_at: String(1700000000 + n),
      revoked_at: n === 1 ? '1700000100' : '', secret_sha256: k.hash
    })
    await raw.set(`${p}key_hash:${k.hash}`, k.id)
    await raw.zadd(`${p}account:${acct}:keys`, n + 1, k.id)
  }
  await raw.set(`${p}key_seq`, '2')
  const day = Math.floor(Date.now() / 86_400_000)
  await raw.hset(`${p}allowance:${acct}`, { day: String(day), used: '7' })
  await raw.pexpire(`${p}allowance:${acct}`, 3_600_000)

  const store = new RedisStore({ url, prefix: p, limits: { ...DEFAULT_LIMITS, dailyAllowance: 10 } })
  t.teardown(() => store.close())
  t.match(await store.authenticate(keys[0].secret), { ok: true, account_id: acct, key_id: keys[0].id })
  t.same(await store.authenticate(keys[1].secret), { ok: false, reason: 'revoked_api_key' })
  t.same((await store.listKeys(acct)).map((k) => k.id), [keys[1].id, keys[0].id], 'newest first, as before')
  t.match(await store.allowance(acct), { upstream_attempts: 7, remaining: 3 }, 'today\'s usage kept')
  t.match(await store.getAccount(acct), { name: 'old team', created_at: 1700000000 })
  t.match(await store.getKey(keys[0].id), { account_id: acct, name: 'k0' })
  const k = new KeyLayout(p)
  const after = [...(await dumpPrefix(url, p)).keys()]
  t.ok(after.includes(k.layout))
  t.notOk(after.some((key) => /:(account|key|allowance|rate):/.test(key) && !key.includes('{')), 'no old key is left')
  const { record } = await store.createKey(acct, 'new')
  t.same((await store.listKeys(acct))[0].id, record.id, 'new keys sort after the moved ones')
})

t.test('a Redis that persists nothing is named in the store\'s warnings; one that persists is not', async (t) => {
  const bare = await spawnRedis()
  t.teardown(() => bare.stop())
  const store = new RedisStore({ url: bare.url, prefix: 'w:', limits: DEFAULT_LIMITS })
  t.teardown(() => store.close())
  await store.ping()
  t.match(store.warnings().join('\n'), /persists nothing/)
  const svc = await startTestService(t,
    { store: new RedisStore({ url: bare.url, prefix: 'w2:', limits: DEFAULT_LIMITS }) })
  const ready = await untilReady(svc.url)
  t.equal(ready.status, 200, 'still ready: it serves, but the operator is told')
  t.match((await ready.json() as { warnings: string[] }).warnings.join('\n'), /persists nothing/)

  const dir = await mkdtemp(join(tmpdir(), 'aloft-aof-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const durable = await spawnRedis(undefined, { persistDir: dir })
  t.teardown(() => durable.stop())
  const safe = new RedisStore({ url: durable.url, prefix: 'w:', limits: DEFAULT_LIMITS })
  t.teardown(() => safe.close())
  await safe.ping()
  t.same(safe.warnings(), [])
})

t.test('Redis coming back empty after a restart is noticed and reported', async (t) => {
  let redis = await spawnRedis()
  t.teardown(() => redis.stop())
  const errors: string[] = []
  const store = new RedisStore({
    url: redis.url, prefix: 'loss:', limits: DEFAULT_LIMITS,
    logger: { warn: () => {}, error: (_o, msg) => { errors.push(String(msg)) } }
  })
  t.teardown(() => store.close())
  const account = await store.createAccount('a')
  const { secret } = await store.createKey(account.id, 'k')
  await redis.stop()
  redis = await spawnRedis(redis.port)
  let answer
  for (let k = 0; k < 50; k++) {
    try {
      answer = await store.authenticate(secret)
      break
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  t.same(answer, { ok: false, reason: 'invalid_api_key' }, 'the key is gone with the data')
  t.match(store.warnings().join('\n'), /came back without aloft's data/)
  t.ok(errors.some((e) => /came back without aloft's data/.test(e)), 'logged as an error')
})
