// A request on cached data asks Redis one thing: its admission, one EVALSHA (key and rate in one
// script, or a public client's rate alone). What a fleet serves before one Redis is its ceiling rests
// on this (bench/redis-trips.ts measures it on every hot path). Counted with MONITOR on a Redis of
// the test's own, the upstream limiter's timer (its {upstream} keys) left out.
import t from 'tap'
import { Redis } from 'ioredis'
import { createStore } from '../../src/accounts/index.js'
import { spawnRedis } from '../helpers/redis.js'
import { startTestService } from '../helpers/service.js'

const redis = await spawnRedis()
t.teardown(() => redis.stop())
const limits = { dailyAllowance: 1000, ratePerSecond: 1000, rateBurst: 1000,
  public: { ratePerSecond: 1000, rateBurst: 1000, dailyAllowance: 1000 } }
const store = createStore({ redisUrl: redis.url, prefix: 'trips:', limits })
const svc = await startTestService(t, { store, env: { REDIS_URL: redis.url, ALOFT_REDIS_PREFIX: 'trips:',
  ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '1000', ALOFT_PUBLIC_RATE_BURST: '1000' } })
const { key } = await svc.newAccount()

const PROFILE = JSON.stringify({ latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z',
  altitudes_m: [300, 1000, 3000], altitude_reference: 'agl' })
const TAWHIRI = '/api/v1/?profile=standard_profile&launch_latitude=52.2297&launch_longitude=21.0122&' +
  'launch_datetime=2020-08-04T12:00:00Z&ascent_rate=5&burst_altitude=30000&descent_rate=5'

/** The commands (name, lower case) the service sent while `send` ran `times` requests. */
async function sentDuring (send: () => Promise<Response>, times: number): Promise<string[]> {
  const base = new Redis(redis.url)
  const monitor = await base.monitor()
  const sent: string[] = []
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === 'lua' || args.some((a) => String(a).includes('{upstream}'))) return
    sent.push(String(args[0]).toLowerCase())
  })
  try {
    for (let k = 0; k < times; k++) {
      const res = await send()
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`answered ${res.status}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200)) // MONITOR's lines trail the commands
    return sent
  } finally {
    monitor.disconnect()
    base.disconnect()
  }
}

const profile = async (): Promise<Response> => await fetch(`${svc.url}/v1/atmosphere/profile`,
  { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: PROFILE })

t.test('a cached profile costs one EVALSHA', async (t) => {
  await (await profile()).arrayBuffer() // fetched, cached, the key's lookup remembered
  t.same(await sentDuring(profile, 5), Array(5).fill('evalsha'))
})

t.test('a Tawhiri path with a key costs one EVALSHA', async (t) => {
  const keyed = async (): Promise<Response> => await fetch(`${svc.url}/k/${key}${TAWHIRI}`)
  await (await keyed()).arrayBuffer()
  t.same(await sentDuring(keyed, 3), Array(3).fill('evalsha'))
})

t.test('a Tawhiri path without a key in public mode costs one EVALSHA', async (t) => {
  const open = async (): Promise<Response> => await fetch(`${svc.url}${TAWHIRI}`)
  await (await open()).arrayBuffer()
  t.same(await sentDuring(open, 3), Array(3).fill('evalsha'))
})
