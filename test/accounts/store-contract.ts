// The behaviour every AccountStore promises, run against each implementation
// (memory.test.ts, redis.test.ts). Each subtest builds its own store with the limits it needs.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import {
  type AccountLimits, type AccountStore, DEFAULT_LIMITS, KeyLimitError, PUBLIC_ACCOUNT, PUBLIC_RATE_PREFIX,
  UnknownAccountError, UnknownCursorError
} from '../../src/accounts/index.js'

export interface StoreUnderTest {
  store: AccountStore
  /** Everything the store holds, as text, to prove what is (not) stored. */
  stored (): Promise<string>
}

export type MakeStore = (t: Test, limits: AccountLimits) => Promise<StoreUnderTest>

const limits = (over: Partial<AccountLimits> = {}): AccountLimits => ({ ...DEFAULT_LIMITS, ...over })

/** 2030-06-01T23:59:58.500Z: 1.5 s before a UTC midnight. */
const BEFORE_MIDNIGHT = Date.UTC(2030, 5, 1, 23, 59, 58, 500)
const NEXT_MIDNIGHT = Date.UTC(2030, 5, 2)

export function storeContract (t: Test, make: MakeStore): void {
  const open = async (t: Test, over: Partial<AccountLimits> = {}): Promise<StoreUnderTest> =>
    await make(t, limits(over))

  t.test('createAccount returns a new account that getAccount finds', async (t) => {
    const { store } = await open(t)
    const before = Math.floor(Date.now() / 1000)
    const account = await store.createAccount('Acme Gliding')
    t.match(account.id, /^acct_[A-Za-z0-9_-]{16}$/)
    t.equal(account.name, 'Acme Gliding')
    t.ok(
      account.created_at >= before && account.created_at <= Math.ceil(Date.now() / 1000),
      'created_at is now, in epoch seconds'
    )
    t.same(await store.getAccount(account.id), account)
    t.not((await store.createAccount('Acme Gliding')).id, account.id, 'ids are unique')
  })

  t.test('getAccount of an unknown id is null', async (t) => {
    const { store } = await open(t)
    t.equal(await store.getAccount('acct_doesnotexist0000'), null)
  })

  t.test('createKey returns the secret once and stores only its hash and display prefix', async (t) => {
    const { store, stored } = await open(t)
    const account = await store.createAccount('a')
    const { record, secret } = await store.createKey(account.id, 'laptop')
    t.match(secret, /^aloft_[A-Za-z0-9_-]+$/)
    t.ok(Buffer.from(secret.slice('aloft_'.length), 'base64url').length * 8 >= 128, 'at least 128 random bits')
    t.match(record, { account_id: account.id, name: 'laptop', revoked_at: null })
    t.match(record.id, /^key_[A-Za-z0-9_-]{16}$/)
    t.equal(record.prefix, secret.slice(0, 12), 'display prefix is the first 12 characters')
    t.notOk(JSON.stringify(record).includes(secret.slice(12)), 'the record does not carry the secret')
    t.notOk(JSON.stringify(await store.listKeys(account.id)).includes(secret.slice(12)), 'listing does not carry it')
    t.notOk(JSON.stringify(await store.getKey(record.id)).includes(secret.slice(12)), 'getKey does not carry it')
    t.notOk((await stored()).includes(secret.slice(12)), 'the secret is in no stored value')
    t.not((await store.createKey(account.id, 'laptop')).secret, secret, 'each key has its own secret')
  })

  t.test('createKey for an unknown account rejects with UnknownAccountError', async (t) => {
    const { store } = await open(t)
    await t.rejects(store.createKey('acct_doesnotexist0000', 'k'), UnknownAccountError)
  })

  t.test('authenticate accepts a live key and names its account and key', async (t) => {
    const { store } = await open(t)
    const account = await store.createAccount('a')
    const { record, secret } = await store.createKey(account.id, 'k')
    t.same(await store.authenticate(secret), { ok: true, account_id: account.id, key_id: record.id })
  })

  t.test('authenticate refuses unknown, altered and malformed secrets as invalid_api_key', async (t) => {
    const { store } = await open(t)
    const { secret } = await store.createKey((await store.createAccount('a')).id, 'k')
    const altered = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A')
    const candidates = [altered, 'aloft_' + 'x'.repeat(43), secret.slice(0, -1), secret + 'x', '', 'Bearer ' + secret]
    for (const candidate of candidates) {
      t.same(
        await store.authenticate(candidate),
        { ok: false, reason: 'invalid_api_key' },
        JSON.stringify(candidate.slice(0, 14))
      )
    }
  })

  t.test('authenticate refuses a revoked key as revoked_api_key', async (t) => {
    const { store } = await open(t)
    const account = await store.createAccount('a')
    const { record, secret } = await store.createKey(account.id, 'k')
    await store.revokeKey(account.id, record.id)
    t.same(await store.authenticate(secret), { ok: false, reason: 'revoked_api_key' })
  })

  t.test('listKeys lists only the account\'s keys, newest first, also within one second', async (t) => {
    const { store } = await open(t)
    const account = await store.createAccount('a')
    const other = await store.createAccount('b')
    const ids: string[] = []
    for (const name of ['one', 'two', 'three', 'four']) {
      ids.push((await store.createKey(account.id, name)).record.id)
      await store.createKey(other.id, name)
    }
    const keys = await store.listKeys(account.id)
    t.same(keys.map((k) => k.id), ids.reverse())
    t.same(keys.map((k) => k.name), ['four', 'three', 'two', 'one'])
    t.ok(keys.every((k) => k.account_id === account.id && k.revoked_at === null))
  })

  t.test('listKeys of an account without keys is empty', async (t) => {
    const { store } = await open(t)
    t.same(await store.listKeys((await store.createAccount('a')).id), [])
    t.same(await store.listKeys('acct_doesnotexist0000'), [])
  })

  t.test('revokeKey sets revoked_at once; revoking again returns the same record', async (t) => {
    const { store } = await open(t)
    const account = await store.createAccount('a')
    const { record } = await store.createKey(account.id, 'k')
    const first = await store.revokeKey(account.id, record.id)
    t.ok(first !== null && typeof first.revoked_at === 'number' && first.revoked_at >= record.created_at)
    t.same(first, { ...record, revoked_at: first?.revoked_at })
    await sleep(1100) // into the next second, so a second revoke that re-stamped would show
    t.same(await store.revokeKey(account.id, record.id), first, 'idempotent')
    t.same(await store.getKey(record.id), first)
    t.same(await store.listKeys(account.id), [first])
  })

  t.test('revokeKey of another account\'s key or an unknown id is null and changes nothing', async (t) => {
    const { store } = await open(t)
    const owner = await store.createAccount('owner')
    const intruder = await store.createAccount('intruder')
    const { record, secret } = await store.createKey(owner.id, 'k')
    t.equal(await store.revokeKey(intruder.id, record.id), null)
    t.equal(await store.revokeKey(owner.id, 'key_doesnotexist00000'), null)
    t.same(await store.authenticate(secret), { ok: true, account_id: owner.id, key_id: record.id })
    t.same(await store.getKey(record.id), record)
  })

  t.test('listKeys pages newest first from a key id; an id not listed is UnknownCursorError', async (t) => {
    const { store } = await open(t)
    const account = await store.createAccount('a')
    const ids: string[] = []
    for (let k = 0; k < 5; k++) ids.push((await store.createKey(account.id, `k${k}`)).record.id)
    ids.reverse()
    const first = await store.listKeys(account.id, { limit: 2 })
    t.same(first.map((k) => k.id), ids.slice(0, 2))
    const second = await store.listKeys(account.id, { limit: 2, after: first[1].id })
    t.same(second.map((k) => k.id), ids.slice(2, 4))
    const last = await store.listKeys(account.id, { limit: 2, after: second[1].id })
    t.same(last.map((k) => k.id), ids.slice(4))
    t.same(await store.listKeys(account.id, { limit: 2, after: last[0].id }), [])
    await t.rejects(store.listKeys(account.id, { limit: 2, after: 'key_doesnotexist00000' }), UnknownCursorError)
  })

  t.test('an account holds at most maxKeys live keys: createKey refuses with KeyLimitError until one is revoked',
    async (t) => {
      const { store } = await open(t, { maxKeys: 3 })
      const account = await store.createAccount('a')
      const made = []
      for (let k = 0; k < 3; k++) made.push((await store.createKey(account.id, `k${k}`)).record)
      await t.rejects(store.createKey(account.id, 'one too many'), KeyLimitError)
      await store.revokeKey(account.id, made[0].id)
      await store.revokeKey(account.id, made[0].id) // a second revoke frees nothing more
      t.ok(await store.createKey(account.id, 'replacement'))
      await t.rejects(store.createKey(account.id, 'one too many again'), KeyLimitError)
      const other = await store.createAccount('b')
      t.ok(await store.createKey(other.id, 'k'), 'each account has its own limit')
    })

  t.test('revoked keys beyond maxKeys are forgotten, oldest first', async (t) => {
    const { store, stored } = await open(t, { maxKeys: 2 })
    const account = await store.createAccount('a')
    const revoked: Array<{ id: string, secret: string }> = []
    for (let k = 0; k < 4; k++) {
      const { record, secret } = await store.createKey(account.id, `k${k}`)
      await store.revokeKey(account.id, record.id)
      revoked.push({ id: record.id, secret })
    }
    const live = await store.createKey(account.id, 'live')
    t.same((await store.listKeys(account.id)).map((k) => k.id), [live.record.id, revoked[3].id, revoked[2].id],
      'the live key and the two newest revoked')
    for (const gone of revoked.slice(0, 2)) {
      t.equal(await store.getKey(gone.id), null, 'forgotten')
      t.same(await store.authenticate(gone.secret), { ok: false, reason: 'invalid_api_key' })
      t.notOk((await stored()).includes(gone.id), 'nothing of it is stored')
    }
    t.same(await store.authenticate(revoked[3].secret), { ok: false, reason: 'revoked_api_key' })
  })

  t.test('getKey of an unknown id is null', async (t) => {
    const { store } = await open(t)
    t.equal(await store.getKey('key_doesnotexist00000'), null)
  })

  t.test('allowance reads today\'s counter without charging', async (t) => {
    const { store } = await open(t, { dailyAllowance: 3 })
    const account = await store.createAccount('a')
    const state = { upstream_attempts: 0, limit: 3, remaining: 3, reset_after_seconds: 2 }
    t.same(await store.allowance(account.id, BEFORE_MIDNIGHT), state)
    t.same(await store.allowance(account.id, BEFORE_MIDNIGHT), state)
  })

  t.test('reserve charges one attempt at a time and refuses at the limit until the reset', async (t) => {
    const { store } = await open(t, { dailyAllowance: 3 })
    const account = await store.createAccount('a')
    for (const used of [1, 2, 3]) {
      t.same(await store.reserve(account.id, BEFORE_MIDNIGHT),
        { ok: true, state: { upstream_attempts: used, limit: 3, remaining: 3 - used, reset_after_seconds: 2 } })
    }
    const refused = { upstream_attempts: 3, limit: 3, remaining: 0, reset_after_seconds: 2 }
    t.same(await store.reserve(account.id, BEFORE_MIDNIGHT), { ok: false, state: refused, retry_after_seconds: 2 })
    t.same(await store.allowance(account.id, BEFORE_MIDNIGHT), refused, 'a refusal charges nothing')
  })

  t.test('each account has its own allowance', async (t) => {
    const { store } = await open(t, { dailyAllowance: 1 })
    const a = await store.createAccount('a')
    const b = await store.createAccount('b')
    t.equal((await store.reserve(a.id, BEFORE_MIDNIGHT)).ok, true)
    t.equal((await store.reserve(a.id, BEFORE_MIDNIGHT)).ok, false)
    t.equal((await store.reserve(b.id, BEFORE_MIDNIGHT)).ok, true)
  })

  t.test('reset_after_seconds counts down to 00:00 UTC and the counter starts again after it', async (t) => {
    const { store } = await open(t, { dailyAllowance: 2 })
    const account = await store.createAccount('a')
    await store.reserve(account.id, BEFORE_MIDNIGHT)
    await store.reserve(account.id, BEFORE_MIDNIGHT)
    t.equal((await store.allowance(account.id, BEFORE_MIDNIGHT)).reset_after_seconds, 2)
    t.equal((await store.allowance(account.id, NEXT_MIDNIGHT - 1000)).reset_after_seconds, 1)
    t.equal((await store.allowance(account.id, NEXT_MIDNIGHT - 1)).reset_after_seconds, 1, 'never 0')
    t.same(await store.allowance(account.id, NEXT_MIDNIGHT),
      { upstream_attempts: 0, limit: 2, remaining: 2, reset_after_seconds: 86400 })
    t.same(await store.reserve(account.id, NEXT_MIDNIGHT + 500),
      { ok: true, state: { upstream_attempts: 1, limit: 2, remaining: 1, reset_after_seconds: 86400 } })
  })

  t.test('without an injected clock the allowance runs on the real UTC day', async (t) => {
    const { store } = await open(t, { dailyAllowance: 5 })
    const account = await store.createAccount('a')
    const toMidnight = (): number => (Math.floor(Date.now() / 86_400_000) + 1) * 86_400 - Date.now() / 1000
    const expected = toMidnight()
    const reserved = await store.reserve(account.id)
    t.match(reserved, { ok: true, state: { upstream_attempts: 1, remaining: 4 } })
    t.ok(Math.abs(reserved.state.reset_after_seconds - expected) <= 2, 'seconds to the next 00:00 UTC')
    t.equal((await store.allowance(account.id)).upstream_attempts, 1)
  })

  t.test('the rate limit allows the burst at once, then refuses with Retry-After', async (t) => {
    const { store } = await open(t, { ratePerSecond: 1, rateBurst: 5 })
    const account = await store.createAccount('a')
    const now = Date.UTC(2030, 0, 1)
    for (const remaining of [4, 3, 2, 1, 0]) {
      t.same(await store.takeRequest(account.id, now),
        { allowed: true, limit: 5, remaining, reset_seconds: 5 - remaining, retry_after_seconds: 0 })
    }
    t.same(await store.takeRequest(account.id, now),
      { allowed: false, limit: 5, remaining: 0, reset_seconds: 5, retry_after_seconds: 1 })
  })

  t.test('the rate limit refills with time', async (t) => {
    const { store } = await open(t, { ratePerSecond: 2, rateBurst: 2 })
    const account = await store.createAccount('a')
    const now = Date.UTC(2030, 0, 1)
    await store.takeRequest(account.id, now)
    await store.takeRequest(account.id, now)
    t.match(
      await store.takeRequest(account.id, now + 499),
      { allowed: false, retry_after_seconds: 1 },
      'not yet: one per 500 ms'
    )
    t.match(await store.takeRequest(account.id, now + 500), { allowed: true, remaining: 0 })
    t.match(await store.takeRequest(account.id, now + 500), { allowed: false })
    t.same(await store.takeRequest(account.id, now + 10_000),
      { allowed: true, limit: 2, remaining: 1, reset_seconds: 1, retry_after_seconds: 0 }, 'full again after a pause')
  })

  t.test('retry_after_seconds rounds up to whole seconds, at least 1', async (t) => {
    const { store } = await open(t, { ratePerSecond: 0.25, rateBurst: 1 })
    const account = await store.createAccount('a')
    const now = Date.UTC(2030, 0, 1)
    t.match(await store.takeRequest(account.id, now), { allowed: true, reset_seconds: 4 })
    t.match(await store.takeRequest(account.id, now + 1), { allowed: false, retry_after_seconds: 4 })
    t.match(await store.takeRequest(account.id, now + 3_999), { allowed: false, retry_after_seconds: 1 })
    t.match(await store.takeRequest(account.id, now + 4_000), { allowed: true })
  })

  t.test('each account has its own rate bucket', async (t) => {
    const { store } = await open(t, { ratePerSecond: 1, rateBurst: 1 })
    const a = await store.createAccount('a')
    const b = await store.createAccount('b')
    const now = Date.UTC(2030, 0, 1)
    t.equal((await store.takeRequest(a.id, now)).allowed, true)
    t.equal((await store.takeRequest(a.id, now)).allowed, false)
    t.equal((await store.takeRequest(b.id, now)).allowed, true)
  })

  t.test('public callers: a rate bucket per address at the public rate, one allowance they share', async (t) => {
    const { store } = await open(t, { rateBurst: 5, dailyAllowance: 9,
      public: { ratePerSecond: 1, rateBurst: 2, dailyAllowance: 1 } })
    const now = BEFORE_MIDNIGHT - 10_000
    const first = `${PUBLIC_RATE_PREFIX}address-a`
    t.match(await store.takeRequest(first, now), { allowed: true, limit: 2 })
    t.match(await store.takeRequest(first, now), { allowed: true })
    t.match(await store.takeRequest(first, now), { allowed: false }, 'the public burst, not the accounts\'')
    t.match(await store.takeRequest(`${PUBLIC_RATE_PREFIX}address-b`, now), { allowed: true }, 'another address')
    t.match(await store.reserve(PUBLIC_ACCOUNT, now), { ok: true, state: { limit: 1 } })
    t.match(await store.reserve(PUBLIC_ACCOUNT, now), { ok: false }, 'the public allowance, shared')
  })

  t.test('public callers: each client a daily share of its own, inside the allowance they share', async (t) => {
    const { store } = await open(t, { public: { ratePerSecond: 1, rateBurst: 2, dailyAllowance: 3,
      dailyAllowancePerClient: 2 } })
    const now = BEFORE_MIDNIGHT - 10_000
    const [a, b] = [`${PUBLIC_RATE_PREFIX}client-a`, `${PUBLIC_RATE_PREFIX}client-b`]
    t.same(await store.allowance(a, now), { upstream_attempts: 0, limit: 2, remaining: 2, reset_after_seconds: 12,
      shared: { limit: 3, remaining: 3 } })
    t.match(await store.reserve(a, now), { ok: true, state: { upstream_attempts: 1, remaining: 1 } })
    t.match(await store.reserve(a, now), { ok: true, state: { upstream_attempts: 2, remaining: 0,
      shared: { remaining: 1 } } })
    t.match(await store.reserve(a, now), { ok: false, state: { upstream_attempts: 2, remaining: 0 },
      retry_after_seconds: 12 }, 'its share is spent')
    t.match(await store.allowance(PUBLIC_ACCOUNT, now), { upstream_attempts: 2, limit: 3 }, 'charged to both')
    t.match(await store.reserve(b, now), { ok: true, state: { upstream_attempts: 1, remaining: 0,
      shared: { remaining: 0 } } }, 'another client, from what is left of the shared day')
    t.match(await store.reserve(b, now), { ok: false, state: { upstream_attempts: 1, remaining: 0,
      shared: { limit: 3, remaining: 0 } } }, 'the shared day is spent: nothing charged to either')
    t.match(await store.allowance(b, now), { upstream_attempts: 1 })
    t.match(await store.allowance(PUBLIC_ACCOUNT, now), { upstream_attempts: 3 })
    t.match(await store.reserve(b, NEXT_MIDNIGHT), { ok: true, state: { upstream_attempts: 1,
      shared: { remaining: 2 } } }, 'a new day for both')
  })

  t.test('admit: a live key gets its account and one request from its bucket', async (t) => {
    const { store } = await open(t, { ratePerSecond: 1, rateBurst: 2 })
    const account = await store.createAccount('a')
    const { record, secret } = await store.createKey(account.id, 'k')
    const now = Date.UTC(2030, 0, 1)
    t.same(await store.admit(secret, now), {
      ok: true, account_id: account.id, key_id: record.id,
      rate: { allowed: true, limit: 2, remaining: 1, reset_seconds: 1, retry_after_seconds: 0 }
    })
    t.match(await store.admit(secret, now), { ok: true, rate: { allowed: true, remaining: 0 } })
    t.match(await store.admit(secret, now), { ok: true, rate: { allowed: false, retry_after_seconds: 1 } })
    t.match(await store.takeRequest(account.id, now), { allowed: false }, 'admit and takeRequest share the bucket')
  })

  t.test('admit: an unknown or malformed key is refused and takes no request', async (t) => {
    const { store } = await open(t, { ratePerSecond: 1, rateBurst: 1 })
    const account = await store.createAccount('a')
    await store.createKey(account.id, 'k')
    const now = Date.UTC(2030, 0, 1)
    t.same(await store.admit(`aloft_${'A'.repeat(43)}`, now), { ok: false, reason: 'invalid_api_key' })
    t.same(await store.admit('not-a-key', now), { ok: false, reason: 'invalid_api_key' })
    t.match(await store.takeRequest(account.id, now), { allowed: true }, 'the bucket is untouched')
  })

  t.test('admit: a revoked key is told apart and takes no request', async (t) => {
    const { store } = await open(t, { ratePerSecond: 1, rateBurst: 1 })
    const account = await store.createAccount('a')
    const { record, secret } = await store.createKey(account.id, 'k')
    await store.revokeKey(account.id, record.id)
    const now = Date.UTC(2030, 0, 1)
    t.same(await store.admit(secret, now), { ok: false, reason: 'revoked_api_key' })
    t.match(await store.takeRequest(account.id, now), { allowed: true }, 'the bucket is untouched')
  })

  t.test('without an injected clock the rate limit runs on the real time', async (t) => {
    const { store } = await open(t, { ratePerSecond: 1, rateBurst: 2 })
    const account = await store.createAccount('a')
    t.match(await store.takeRequest(account.id), { allowed: true, remaining: 1 })
    t.match(await store.takeRequest(account.id), { allowed: true, remaining: 0 })
    t.match(await store.takeRequest(account.id), { allowed: false, retry_after_seconds: 1 })
  })

  t.test('ping answers when the store is up', async (t) => {
    const { store } = await open(t)
    await t.resolves(store.ping())
  })
}
