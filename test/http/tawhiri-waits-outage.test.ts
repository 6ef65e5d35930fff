// Waiting its turn on a broken store: a Tawhiri-path request waiting for a rate token when Redis goes
// away hears the store's 503 at its next try (Tawhiri's shape, Retry-After), not after its whole
// wait, and leaves no waiter behind (src/http/tawhiri/turns.ts; docs/DESIGN.md §10).
import t from 'tap'
import { createStore } from '../../src/accounts/index.js'
import { spawnRedis } from '../helpers/redis.js'
import { startTestService } from '../helpers/service.js'
import { stranger } from '../helpers/stranger.js'

const open = { ratePerSecond: 0.5, rateBurst: 1, dailyAllowance: 10 }
const redis = await spawnRedis()
t.teardown(() => redis.stop())
const store = createStore({ redisUrl: redis.url, prefix: 'waits:',
  limits: { dailyAllowance: 10, ratePerSecond: 100, rateBurst: 100, public: open } })
const svc = await startTestService(t, { store, env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '0.5',
  ALOFT_PUBLIC_RATE_BURST: '1', ALOFT_TAWHIRI_BURST_WAIT_MS: '20000' } })

t.test('a waiter whose store goes away is answered 503 at its next try', async (t) => {
  const who = stranger(svc.url, '127.0.12.1', 2)
  t.teardown(() => who.close())
  t.equal((await who.get('/api/datasetcheck')).status, 200, 'its burst of one')
  const started = Date.now()
  const waiting = who.get('/api/datasetcheck', { origin: 'http://page.example' })
  await new Promise((resolve) => setTimeout(resolve, 300)) // it has joined the queue
  await redis.stop()
  const answer = await waiting
  const ms = Date.now() - started
  t.equal(answer.status, 503)
  t.match(JSON.parse(answer.body), { error: { type: 'ServiceUnavailableException',
    description: /account store is unreachable/ } })
  t.match(answer.headers['retry-after'], /^[1-9]\d*$/)
  t.equal(answer.headers['access-control-allow-origin'], '*')
  t.ok(ms < 20_000 / 2, `answered after ${ms} ms, not after its 20 s wait`)
  const metrics = await (await fetch(`${svc.url}/metrics`)).text()
  t.match(metrics, /^aloft_capacity\{state="waiting"\} 0$/m, 'no waiter left behind')
})
