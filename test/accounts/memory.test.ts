// The store contract against the in-memory store, plus what only it promises.
import { inspect } from 'node:util'
import t from 'tap'
import { createStore, DEFAULT_LIMITS, MemoryStore } from '../../src/accounts/index.js'
import { storeContract } from './store-contract.js'

storeContract(t, async (t, limits) => {
  const store = new MemoryStore(limits)
  t.teardown(() => store.close())
  // Everything the store holds, private fields included.
  return {
    store,
    stored: async () => inspect(store, { depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity })
  }
})

t.test('createStore without a Redis URL makes the in-memory store', async (t) => {
  t.equal(createStore({ limits: DEFAULT_LIMITS }).kind, 'memory')
  t.equal(createStore({ redisUrl: '', limits: DEFAULT_LIMITS }).kind, 'memory')
})

t.test('buckets full again and past days\' counters are forgotten (memory bounded by callers of late)', async (t) => {
  const store = new MemoryStore({ ...DEFAULT_LIMITS, public: { ratePerSecond: 10, rateBurst: 20, dailyAllowance: 5000,
    dailyAllowancePerClient: 2 } })
  const now = Date.UTC(2030, 0, 1, 12)
  for (let k = 0; k < 3000; k++) {
    await store.takeRequest(`public:client-${k}`, now + k)
    if (k < 1000) await store.reserve(`public:client-${k}`, now)
  }
  t.ok(store.held().rateBuckets < 3000, `swept when they doubled: ${store.held().rateBuckets} of 3000 held`)
  t.equal(store.held().dayCounters, 1001, 'today\'s counters (and the shared one) kept')
  await store.takeRequest('public:late', now + 86_400_000)
  t.same(store.held(), { rateBuckets: 1, dayCounters: 0 }, 'a day on: only the one just used')
  t.match(await store.takeRequest('public:client-1', now + 86_400_000), { allowed: true, remaining: 19 },
    'a forgotten bucket is a full one')
})
