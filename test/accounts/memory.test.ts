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
