// Limits are checked once, when a store is made: nonsense fails loudly rather than misbehaving.
import t from 'tap'
import { createStore, DEFAULT_LIMITS } from '../../src/accounts/index.js'

t.test('the defaults are those of the design (1000 a day, 20/s, burst 40) and 100 live keys', async (t) => {
  t.same(DEFAULT_LIMITS, { dailyAllowance: 1000, ratePerSecond: 20, rateBurst: 40, maxKeys: 100 })
})

t.test('a store refuses limits outside their domain', async (t) => {
  for (const bad of [
    { dailyAllowance: -1 }, { dailyAllowance: 1.5 }, { ratePerSecond: 0 }, { ratePerSecond: Number.NaN },
    { ratePerSecond: Infinity }, { rateBurst: 0 }, { rateBurst: 2.5 }, { maxKeys: 0 }, { maxKeys: 1.5 }
  ]) {
    t.throws(() => createStore({ limits: { ...DEFAULT_LIMITS, ...bad } }), RangeError, JSON.stringify(bad))
  }
})

t.test('an allowance of 0 refuses every upstream attempt', async (t) => {
  const store = createStore({ limits: { ...DEFAULT_LIMITS, dailyAllowance: 0 } })
  t.match(await store.reserve('acct_a'), { ok: false, state: { upstream_attempts: 0, limit: 0, remaining: 0 } })
})

t.test('an injected clock must be a finite number', async (t) => {
  const store = createStore({ limits: DEFAULT_LIMITS })
  await t.rejects(store.reserve('acct_a', Number.NaN), RangeError)
  await t.rejects(store.takeRequest('acct_a', Infinity), RangeError)
})
