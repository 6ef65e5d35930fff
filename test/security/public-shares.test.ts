// Every stranger's own share (docs/DESIGN.md §10): a public client's daily share of upstream
// attempts inside the one all public callers share (finding 3), a long flight's extra tokens from
// the caller's own bucket (finding 4), and buckets of callers not seen for a while forgotten, so
// the memory store stays bounded however many addresses pass by (finding 5).
import t from 'tap'
import { MemoryStore } from '../../src/accounts/index.js'
import { startTestService } from '../helpers/service.js'
import { stranger } from '../helpers/stranger.js'
import { startSampleUpstream } from '../helpers/upstream.js'

const ground = (lat: number, lon: number): string => `/api/ruaumoko/?latitude=${lat}&longitude=${lon}`

t.test('finding 3: one stranger spends its own share of the day, not everyone\'s', async (t) => {
  const { server } = await startSampleUpstream(t)
  // a cold 1° tile is one upstream attempt
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${server.filterUrl}`,
    ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_DAILY_ALLOWANCE: '6', ALOFT_PUBLIC_DAILY_ALLOWANCE_PER_CLIENT: '2' } })
  const [a, b, c, d, e] = [1, 2, 3, 4, 5].map((k) => stranger(svc.url, `127.0.3.${k}`))
  t.teardown(() => { for (const s of [a, b, c, d, e]) s.close() })
  const places = Array.from({ length: 12 }, (_, k) => [49.5 + (k % 6), 14.5 + Math.floor(k / 6) * 2] as const)
  const answers = []
  for (const [lat, lon] of places.slice(0, 6)) answers.push(await a.get(ground(lat, lon)))
  t.same(answers.map((x) => x.status), [200, 200, 429, 429, 429, 429], 'A\'s share: 2 new places')
  t.match(JSON.parse(answers[2].body), { error: { type: 'DailyAllowanceException',
    description: /0 of this client's 2 upstream attempts \(each caller without an API key has its own share/ } })
  t.match(answers[2].headers['retry-after'], /^\d+$/)
  t.equal((await a.get(ground(...places[0]))).status, 200, 'a place already fetched still answers')
  t.equal((await b.get(ground(...places[6]))).status, 200, 'another stranger still gets new places')
  t.equal((await c.get(ground(...places[7]))).status, 200)
  t.equal((await c.get(ground(...places[8]))).status, 200)
  t.equal((await d.get(ground(...places[9]))).status, 200, 'the sixth of the shared day')
  const spent = await e.get(ground(...places[10]))
  t.equal(spent.status, 429, 'the shared day is spent')
  t.match(JSON.parse(spent.body), { error: { type: 'DailyAllowanceException',
    description: /0 of the 6 upstream attempts all callers without an API key share are left today/ } })
})

t.test('finding 4: a long flight\'s extra tokens come from its caller\'s own bucket', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '0.01',
    ALOFT_PUBLIC_RATE_BURST: '3', ALOFT_TAWHIRI_BURST_WAIT_MS: '0' } })
  // a float of 8 days: up to 11 530 steps, two tokens (one per started 10 000)
  const float = '/tawhiri?profile=float_profile&launch_latitude=52.2297&launch_longitude=21.0122&' +
    'launch_datetime=2020-08-04T12:00:00Z&ascent_rate=5&float_altitude=20000&stop_datetime=2020-08-12T12:00:00Z'
  const a = stranger(svc.url, '127.0.4.1')
  const b = stranger(svc.url, '127.0.4.2')
  t.teardown(() => { a.close(); b.close() })
  const first = await a.get(float)
  t.not(first.status, 429)
  t.equal(first.headers['ratelimit-remaining'], '1', 'both tokens from its own bucket of 3')
  const second = await a.get(float)
  t.equal(second.status, 429, 'its own bucket has one token left, the flight costs two')
  t.match(JSON.parse(second.body), { error: { description: /each caller without an API key may spend 0\.01 per second/ } })
  t.equal((await a.get(float)).status, 429)
  const fresh = await b.get(float)
  t.not(fresh.status, 429, 'a fresh address flies as far as its own bucket allows')
  t.equal(fresh.headers['ratelimit-remaining'], '1', 'and is told of its own bucket')
})

t.test('finding 5: buckets of callers not seen for a while are forgotten', async (t) => {
  let offset = 0
  const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_LOG_LEVEL: 'warn' },
    now: () => Date.now() + offset })
  const store = svc.store as MemoryStore
  const before = store.held().rateBuckets
  const statuses = new Set<number>()
  for (let k = 0; k < 300; k++) {
    const s = stranger(svc.url, `127.0.${5 + Math.floor(k / 250)}.${(k % 250) + 1}`, 1)
    statuses.add((await s.get('/api/datasetcheck')).status)
    s.close()
  }
  t.same([...statuses], [200], '300 addresses, each answered')
  const held = store.held().rateBuckets
  t.ok(held >= before + 300, `a bucket per address while they are used (${held})`)
  offset = 120_000 // two minutes on: every one of those buckets is full again, as good as absent
  const last = stranger(svc.url, '127.0.9.1', 1)
  t.teardown(() => last.close())
  t.equal((await last.get('/api/datasetcheck')).status, 200)
  t.ok(store.held().rateBuckets <= 2, `forgotten (${store.held().rateBuckets} held)`)
})
