// The decoded-unit cache: a byte budget, least recently used out first, one load per key.
import t from 'tap'
import { UnitCache } from '../../src/field/index.js'

const unit = (bytes: number, name = '') => ({ bytes, name })

t.test('a second get of a key is a hit without loading', async (t) => {
  const cache = new UnitCache<{ bytes: number }>(100)
  let loads = 0
  const load = async () => { loads++; return unit(10) }
  t.equal((await cache.get('a', load)).hit, false)
  t.equal((await cache.get('a', load)).hit, true)
  t.equal(loads, 1)
  t.match(cache.stats, { hits: 1, misses: 1, bytes: 10, entries: 1 })
})

t.test('concurrent gets of one key share one load', async (t) => {
  const cache = new UnitCache<{ bytes: number }>(100)
  let loads = 0
  const load = async () => { loads++; await new Promise((r) => setTimeout(r, 20)); return unit(10) }
  const results = await Promise.all(Array.from({ length: 50 }, () => cache.get('a', load)))
  t.equal(loads, 1)
  t.equal(results.filter((r) => !r.hit).length, 1, 'one miss, 49 joined')
  t.ok(results.every((r) => r.value === results[0].value), 'all get the same unit')
})

t.test('past the budget the least recently used unit is evicted', async (t) => {
  const evicted: string[] = []
  const cache = new UnitCache<{ bytes: number }>(25, (k) => evicted.push(k))
  await cache.get('a', async () => unit(10))
  await cache.get('b', async () => unit(10))
  await cache.get('a', async () => unit(10)) // a is now the most recent
  await cache.get('c', async () => unit(10))
  t.same(evicted, ['b'])
  t.ok(cache.has('a') && cache.has('c') && !cache.has('b'))
  t.equal(cache.stats.bytes, 20)
})

t.test('a unit larger than the budget is kept until the next one arrives', async (t) => {
  const cache = new UnitCache<{ bytes: number }>(5)
  await cache.get('big', async () => unit(50))
  t.ok(cache.has('big'))
  await cache.get('next', async () => unit(1))
  t.notOk(cache.has('big'))
})

t.test('a failed load is not cached and the next get loads again', async (t) => {
  const cache = new UnitCache<{ bytes: number }>(100)
  await t.rejects(cache.get('a', async () => { throw new Error('upstream down') }), /upstream down/)
  t.notOk(cache.has('a'))
  t.equal((await cache.get('a', async () => unit(1))).hit, false)
})

t.test('replacing a key hands the old value to the eviction callback', async (t) => {
  const evicted: number[] = []
  const cache = new UnitCache<{ bytes: number }>(100, (_k, v) => evicted.push(v.bytes))
  cache.set('a', unit(1))
  cache.set('a', unit(2))
  t.same(evicted, [1])
  t.equal(cache.stats.bytes, 2)
})

t.test('a hit by a key built afresh (a concatenation) refreshes recency like the stored one', async (t) => {
  const evicted: string[] = []
  const cache = new UnitCache<{ bytes: number }>(25, (k) => evicted.push(k))
  const part = 'gfs/2020080412/f00'
  cache.set(`${part}0#0,0`, unit(10))
  cache.set(`${part}6#0,0`, unit(10))
  t.ok(cache.hit([part, '0#0,0'].join('')) !== undefined, 'found by an equal string built afresh')
  cache.set(`${part}12#0,0`, unit(10))
  t.same(evicted, [`${part}6#0,0`], 'the unit not used since is the one out')
  t.match(cache.stats, { hits: 1, evictions: 1, entries: 2, bytes: 20 })
})

t.test('several evictions at once go oldest first and stop within the budget', async (t) => {
  const evicted: string[] = []
  const cache = new UnitCache<{ bytes: number }>(30, (k) => evicted.push(k))
  for (const k of ['a', 'b', 'c']) cache.set(k, unit(10))
  cache.hit('a')
  cache.set('d', unit(25))
  t.same(evicted, ['b', 'c', 'a'])
  cache.set('e', unit(5))
  t.same(evicted, ['b', 'c', 'a'], 'd and e fit: nothing more out')
  t.equal(cache.stats.bytes, 30)
})
