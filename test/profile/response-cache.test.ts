// Answers kept for exact repeats: served only for the same bytes, under the same data generation,
// within their age; bounded in bytes; the key and the rate limit still checked for every request.
import t from 'tap'
import { ResponseCache } from '../../src/profile/response-cache.js'
import { startTestService } from '../helpers/service.js'

const body = (s: string): Buffer => Buffer.from(s)

t.test('the cache alone', async (t) => {
  let generation = 1
  let now = 0
  const cache = new ResponseCache({ maxBytes: 1000, maxAgeMs: 100, generation: () => generation, now: () => now })
  /** A body's second answer is the one kept. */
  const keep = (b: Buffer, answer: Buffer, g: number): void => { cache.set(b, answer, g); cache.set(b, answer, g) }

  t.test('a body seen once is remembered, not its answer; the second time the answer is kept', async (t) => {
    cache.set(body('{"once":1}'), body('answer'), generation)
    t.equal(cache.get(body('{"once":1}')), undefined)
    cache.set(body('{"once":1}'), body('answer'), generation)
    t.same(cache.get(body('{"once":1}')), body('answer'))
  })

  t.test('an answer given as text is kept as its UTF-8 bytes', async (t) => {
    cache.set(body('{"text":1}'), '{"t":"50 °C"}', generation)
    cache.set(body('{"text":1}'), '{"t":"50 °C"}', generation)
    t.same(cache.get(body('{"text":1}')), Buffer.from('{"t":"50 °C"}', 'utf8'))
  })

  t.test('an answer is served for the very same bytes only', async (t) => {
    keep(body('{"a":1}'), body('answer'), generation)
    t.same(cache.get(body('{"a":1}')), body('answer'))
    t.equal(cache.get(body('{"a": 1}')), undefined, 'the same JSON written differently is another request')
  })

  t.test('a new data generation retires every kept answer', async (t) => {
    keep(body('{"b":1}'), body('answer'), generation)
    generation++
    t.equal(cache.get(body('{"b":1}')), undefined)
  })

  t.test('an answer computed under an older generation is not kept', async (t) => {
    const before = generation
    generation++
    keep(body('{"c":1}'), body('answer'), before)
    t.equal(cache.get(body('{"c":1}')), undefined)
  })

  t.test('an answer is served until its age runs out', async (t) => {
    keep(body('{"d":1}'), body('answer'), generation)
    now += 99
    t.ok(cache.get(body('{"d":1}')))
    now += 1
    t.equal(cache.get(body('{"d":1}')), undefined)
  })

  t.test('the byte bound holds, least recently used out first', async (t) => {
    const answer = Buffer.alloc(200)
    for (let k = 0; k < 10; k++) keep(body(`{"e":${k}}`), answer, generation)
    t.ok(cache.bytes <= 1000, `${cache.bytes} bytes kept`)
    t.equal(cache.get(body('{"e":0}')), undefined, 'the oldest went first')
    t.ok(cache.get(body('{"e":9}')), 'the newest stayed')
    keep(body('{"big":1}'), Buffer.alloc(2000), generation)
    t.equal(cache.get(body('{"big":1}')), undefined, 'an answer larger than the bound is not kept')
  })
})

const PROFILE = JSON.stringify({
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300, 1000], altitude_reference: 'agl'
})

async function post (url: string, key: string, text: string): Promise<{ status: number, text: string }> {
  const res = await fetch(`${url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: text
  })
  return { status: res.status, text: await res.text() }
}

t.test('over HTTP', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_PER_SECOND: '0.01', ALOFT_RATE_BURST: '5' } })
  const { key } = await svc.newAccount()
  const cache = svc.profiles!.responses

  const cold = await post(svc.url, key, PROFILE)
  t.equal(cold.status, 200)
  t.equal(cache.size, 0, 'an answer that had to fetch is not kept (another account might not be allowed to)')
  const first = await post(svc.url, key, PROFILE)
  t.equal(first.status, 200)
  t.equal(cache.size, 0, 'the first answer from cached data is not kept: the body might never come again')
  const second = await post(svc.url, key, PROFILE)
  t.equal(second.text, first.text)
  t.equal(cache.size, 1, 'its second is kept')
  const hits = cache.stats.hits
  const again = await post(svc.url, key, PROFILE)
  t.equal(again.status, 200)
  t.equal(again.text, first.text, 'a repeat gets the same bytes')
  t.equal(cache.stats.hits, hits + 1, '… from the kept answer')

  t.equal((await post(svc.url, 'aloft_' + 'x'.repeat(43), PROFILE)).status, 401, 'a bad key is refused all the same')

  svc.source!.catalog.invalidate()
  const afterListing = await post(svc.url, key, PROFILE)
  t.equal(cache.size, 0, 'nor is it kept again at once: the body counts as new under the new generation')
  t.equal(afterListing.status, 200)
  t.equal(cache.stats.hits, hits + 1, 'a catalog change retires the kept answer: computed again')
  t.equal(afterListing.text, first.text, 'to the same answer, here')

  const limited = await post(svc.url, key, PROFILE)
  t.equal(limited.status, 429, 'the rate limit still counts repeats (burst of 5 spent)')
  const metrics = await (await fetch(`${svc.url}/metrics`)).text()
  t.match(metrics, /aloft_profile_repeat_lookups\{result="hit"\} [1-9]/)
})
