// The Redis store and the upstream limiter on a real (throwaway) three-node Redis Cluster: every
// script keeps to one slot, so the whole store contract holds there too.
import t from 'tap'
import { createStore } from '../../src/accounts/index.js'
import { Throttle } from '../../src/source/adapters/throttle.js'
import { spawnCluster } from '../helpers/redis-cluster.js'
import { storeContract } from './store-contract.js'

const cluster = await spawnCluster(t)
let n = 0

storeContract(t, async (t, limits) => {
  const prefix = `cluster:${n++}:`
  const store = createStore({ redisUrl: cluster.url, prefix, limits })
  t.teardown(() => store.close())
  return { store, stored: async () => [...(await cluster.dump(prefix))].join('\n') }
})

t.test('an account\'s keys spread over the cluster by account, each account in one slot', async (t) => {
  const store = createStore({ redisUrl: cluster.url, prefix: 'spread:',
    limits: { dailyAllowance: 5, ratePerSecond: 0.01, rateBurst: 5 } }) // rate keys outlive the test
  t.teardown(() => store.close())
  for (let k = 0; k < 6; k++) {
    const account = await store.createAccount(`a${k}`)
    const { secret } = await store.createKey(account.id, 'k')
    t.match(await store.admit(secret), { ok: true, rate: { allowed: true } })
    t.match(await store.reserve(account.id), { ok: true })
  }
  const keys = [...(await cluster.dump('spread:')).keys()]
  t.equal(keys.length, 6 * 9 + 1, 'nine keys per account and the layout marker, found on the masters')
})

t.test('the clustered upstream limiter runs its scripts on the cluster', async (t) => {
  const throttle = new Throttle({ redisUrl: cluster.url, id: 'cluster:{upstream}', maxConcurrent: 2, perInterval: 100 })
  t.teardown(() => throttle.close())
  await throttle.ready()
  const results = await Promise.all([1, 2, 3].map(async (x) => await throttle.schedule(async () => x * 2, 1000)))
  t.same(results, [2, 4, 6])
})
