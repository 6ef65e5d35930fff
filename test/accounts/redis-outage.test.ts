// When Redis goes away, every store call fails fast with StoreUnavailableError, and the same
// store works again once Redis is back. Uses private redis-server processes it can kill.
import t, { type Test } from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { type AccountStore, createStore, DEFAULT_LIMITS, StoreUnavailableError } from '../../src/accounts/index.js'
import { freePort, spawnRedis, type SpawnedRedis } from '../helpers/redis.js'

const prefix = 'aloft-outage-test:'

interface Logged { obj: object, msg?: string }

function storeOn (t: Test, url: string): { store: AccountStore, logged: Logged[] } {
  const logged: Logged[] = []
  const store = createStore({
    redisUrl: url,
    prefix,
    limits: DEFAULT_LIMITS,
    logger: { warn: (obj, msg) => logged.push({ obj, msg }) }
  })
  t.teardown(() => store.close())
  return { store, logged }
}

async function server (t: Test, port?: number): Promise<SpawnedRedis> {
  const redis = await spawnRedis(port)
  t.teardown(() => redis.stop())
  return redis
}

/** The store's own timeout for a call (createStore's default). */
const STORE_TIMEOUT_MS = 1000
/**
 * "Quickly": by the store's own timeout, not by waiting for Redis to come back (it does not, here)
 * nor on the network's timeouts (minutes). Ten of its own timeouts tell those apart on any machine.
 */
const QUICKLY_MS = 10 * STORE_TIMEOUT_MS

/** Asserts the call rejects with StoreUnavailableError, by the store's own timeout. */
async function refusedQuickly (t: Test, name: string, call: () => Promise<unknown>): Promise<void> {
  const started = performance.now()
  await t.rejects(call(), StoreUnavailableError, name)
  const ms = performance.now() - started
  t.ok(ms < QUICKLY_MS, `${name} gave up in ${ms.toFixed(0)} ms (its timeout: ${STORE_TIMEOUT_MS} ms)`)
}

async function untilUp (store: AccountStore): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      return await store.ping()
    } catch {
      await sleep(100)
    }
  }
  throw new Error('the store did not come back within 10 s')
}

t.test('with Redis killed, every call rejects quickly; after a restart the same store works', async (t) => {
  const redis = await server(t)
  const { store, logged } = storeOn(t, redis.url)
  const account = await store.createAccount('a')
  const { record, secret } = await store.createKey(account.id, 'k')

  await redis.stop()
  const calls: Record<string, () => Promise<unknown>> = {
    ping: () => store.ping(),
    createAccount: () => store.createAccount('b'),
    getAccount: () => store.getAccount(account.id),
    createKey: () => store.createKey(account.id, 'k2'),
    getKey: () => store.getKey(record.id),
    listKeys: () => store.listKeys(account.id),
    revokeKey: () => store.revokeKey(account.id, record.id),
    authenticate: () => store.authenticate(secret),
    admit: () => store.admit(secret),
    allowance: () => store.allowance(account.id),
    reserve: () => store.reserve(account.id),
    takeRequest: () => store.takeRequest(account.id)
  }
  for (const [name, call] of Object.entries(calls)) await refusedQuickly(t, name, call)
  await Promise.all(Object.values(calls).map((call) => t.rejects(call(), StoreUnavailableError)))

  await server(t, redis.port)
  await untilUp(store)
  // The restarted server is empty (no persistence) and has no scripts loaded.
  const again = await store.createAccount('after')
  const key = await store.createKey(again.id, 'k')
  t.match(await store.authenticate(key.secret), { ok: true, account_id: again.id })
  t.match(await store.reserve(again.id), { ok: true })
  t.match(await store.takeRequest(again.id), { allowed: true })

  const text = JSON.stringify(logged)
  t.match(logged, [{ msg: /unreachable/ }, { msg: /reachable again/ }], 'one line when lost, one when back')
  t.notOk(text.includes(secret) || text.includes(key.secret), 'no secret in the log')
  t.notOk(text.includes('redis://'), 'no URL in the log')
})

t.test('a Redis that stops answering on a live connection: admission rejects within the timeout, then serves again',
  async (t) => {
    const redis = await server(t)
    const { store } = storeOn(t, redis.url)
    const account = await store.createAccount('a')
    const { secret } = await store.createKey(account.id, 'k')
    t.match(await store.admit(secret), { ok: true }, 'connected, layout checked, the key known')
    const operator = new Redis(redis.url)
    t.teardown(() => operator.disconnect())
    await operator.call('CLIENT', 'PAUSE', '2500', 'ALL')
    await refusedQuickly(t, 'admit while Redis is paused', () => store.admit(secret))
    await untilUp(store)
    t.match(await store.admit(secret), { ok: true, account_id: account.id })
  })

t.test('a store made while Redis is unreachable rejects quickly and connects once Redis starts', async (t) => {
  const port = await freePort()
  const { store } = storeOn(t, `redis://127.0.0.1:${port}`)
  await refusedQuickly(t, 'ping', () => store.ping())
  await refusedQuickly(t, 'authenticate', () => store.authenticate('aloft_' + 'x'.repeat(43)))
  await server(t, port)
  await untilUp(store)
  t.equal(await store.getAccount('acct_doesnotexist0000'), null)
})

t.test('a closed store rejects with StoreUnavailableError', async (t) => {
  const redis = await server(t)
  const { store } = storeOn(t, redis.url)
  await store.ping()
  await store.close()
  await refusedQuickly(t, 'ping', () => store.ping())
  await t.resolves(store.close(), 'closing twice is harmless')
})

t.test('closing a store whose Redis is down returns at once', async (t) => {
  const redis = await server(t)
  const { store } = storeOn(t, redis.url)
  await store.ping()
  await redis.stop()
  const started = performance.now()
  await store.close()
  t.ok(performance.now() - started < QUICKLY_MS, 'by the store\'s own timeout at most')
  await t.rejects(store.ping(), StoreUnavailableError)
})
