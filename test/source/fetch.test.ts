// The fetcher against the local upstream (bucket layout over HTTP): single-flight, allowance
// charges, the raw disk cache, and every row of the outcome table.
import t from 'tap'
import { MemoryStore } from '../../src/accounts/index.js'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { decodeField, scanMessages } from '../../src/grib/index.js'
import { MAX_RANGE_GAP, bridge, extract, isUnitField } from '../../src/source/unit.js'
import { SourceError, type Resolution } from '../../src/source/index.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { at, harness, metricValue, rejection } from './helpers.js'

const P = { latitude: 52.2, longitude: 21.0, quality: 'best_available' as const }
const F006 = 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'

t.test('50 concurrent requests for one cold unit: one upstream fetch, one charge', async (t) => {
  const { server } = await startSampleUpstream(t)
  const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } })
  const r = await h.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h.account })
  t.equal(r.unitKey, 'gfs/2020080412/f006')
  const before = server.count(F006)
  const units = await Promise.all(
    Array.from({ length: 50 }, async () => await h.source.fetch(r, { accountId: h.account }))
  )
  t.equal(server.count(F006) - before, 2, 'one unit fetch: the .idx probe (absent) and the file')
  t.equal(server.count(`${F006}.idx`), 1)
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 1, 'one allowance charge')
  t.ok(units.every((u) => u === units[0] || u.sha256 === units[0].sha256), 'all get the same bytes')
  const u = units[0]
  t.match(u.sha256, /^[0-9a-f]{64}$/)
  t.equal(u.fromCache, false)
  t.equal(u.run.toISOString(), '2020-08-04T12:00:00.000Z')
  t.equal(u.step, 6)
  t.equal(u.url, `${server.bucketUrl}/${F006}`)
  t.ok(u.retrievedAt.getTime() <= Date.now() && u.retrievedAt.getTime() > Date.now() - 60_000)
  // the unit holds only the profile's fields: HGT/TMP on 34 levels, RH/UGRD/VGRD on 31, HGT:surface
  // 34 levels of HGT and RH, 31 of TMP, UGRD and VGRD, surface HGT, and 21 near-ground fields of
  // the surface layer (PRES at the surface and 80 m, TMP 2/80/100 m, SPFH 2/80 m, wind 10…100 m)
  t.equal(u.fields.length, 34 * 2 + 31 * 3 + 1 + 21)
  t.ok(u.bytes.length < 1_092_817 / 2, 'cut to the needed messages')
  t.equal(await metricValue(h.registry, 'aloft_upstream_attempts_total'), 1)

  const again = await h.source.fetch(r, { accountId: h.account })
  t.equal(again.fromCache, true, 'a second request is served from the raw cache')
  t.equal(again.sha256, u.sha256)
  t.equal(again.retrievedAt.toISOString(), u.retrievedAt.toISOString(), 'with the time the bytes first arrived')
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 1, 'no charge')
  t.equal(server.count(F006) - before, 2, 'no upstream request')
  t.equal((await h.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h.account })).cached, true)

  // a restart (new Source, same cache directory) does not fetch again
  const h2 = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl }, cacheDir: h.cacheDir })
  const r2 = await h2.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h2.account })
  t.equal(r2.cached, true)
  const restarted = await h2.source.fetch(r2, { accountId: h2.account })
  t.equal(restarted.sha256, u.sha256)
  t.equal((await h2.store.allowance(h2.account)).upstream_attempts, 0)
  t.equal(server.count(F006) - before, 2)
})

t.test('bridging ranges: near ones in one request, cut apart again', async (t) => {
  const spans = bridge([{ start: 0, end: 9 }, { start: 15, end: 19 }, { start: 1000, end: null }], 10)
  t.same(spans.map((s) => s.range), [{ start: 0, end: 19 }, { start: 1000, end: null }])
  t.same(spans[0].keep, [{ start: 0, end: 10 }, { start: 15, end: 20 }])
  const file = Uint8Array.from({ length: 1010 }, (_, k) => k % 251)
  const out = extract(spans, [file.subarray(0, 20), file.subarray(1000)])
  t.same([...out], [...file.subarray(0, 10), ...file.subarray(15, 20), ...file.subarray(1000)])
  t.throws(
    () => extract(spans, [file.subarray(0, 12), file.subarray(1000)]),
    { name: 'UpstreamFailure', kind: 'unusable' },
    'a short answer is unusable'
  )
})

t.test('.idx byte ranges: only the needed fields, near ranges fetched together', async (t) => {
  const { server, root } = await startSampleUpstream(t, { idx: true })
  const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } })
  const r = await h.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h.account })
  const before = server.requests.length
  const u = await h.source.fetch(r, { accountId: h.account })
  const ranged = server.requests.slice(before).filter((q) => q.range !== null)
  t.ok(ranged.length >= 1, `${ranged.length} range request(s)`)
  t.ok(ranged.every((q) => q.status === 206))
  // 34 levels of HGT and RH, 31 of TMP, UGRD and VGRD, surface HGT, and 21 near-ground fields of
  // the surface layer (PRES at the surface and 80 m, TMP 2/80/100 m, SPFH 2/80 m, wind 10…100 m)
  t.equal(u.fields.length, 34 * 2 + 31 * 3 + 1 + 21)
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 1, 'many range requests, one attempt')
  // byte ranges never overlap, and no two are closer than the gap that would have bridged them
  const spans = ranged.map((q) => /bytes=(\d+)-(\d*)/.exec(q.range!)!.slice(1).map(Number)).sort((a, b) => a[0] - b[0])
  for (let k = 1; k < spans.length; k++) {
    t.ok(spans[k][0] > spans[k - 1][1] + 1 + MAX_RANGE_GAP, `range ${k} is far from the previous`)
  }
  const whole = await readFile(join(root, 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'))
  // RH at 2 m is carried only where SPFH at 2 m is not (this file has both)
  const wanted = scanMessages(new Uint8Array(whole))
    .filter((f) => isUnitField(f) && !(f.name === 'RH' && f.level.type === 103))
  t.equal(
    u.bytes.length,
    [...new Map(wanted.map((f) => [f.offset, f.length])).values()].reduce((n, l) => n + l, 0),
    'only the needed messages are kept'
  )
})

t.test('SPFH file with its .idx (derived, complex packing)', async (t) => {
  const { server } = await startSampleUpstream(t, { spfh: true })
  const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } })
  const r = await h.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h.account })
  const u = await h.source.fetch(r, { accountId: h.account })
  t.ok(u.fields.some((f) => f.name === 'SPFH'))
  t.notOk(u.fields.some((f) => f.name === 'RH'))
  t.ok(u.fields.every((f) => f.packing === 3))
  t.ok(u.fields.some((f) => f.name === 'HGT' && f.level.type === 1), 'HGT at the surface')
  t.ok(server.requests.some((q) => q.url.endsWith('.idx') && q.status === 200))
})

t.test('outcome table', async (t) => {
  const { server } = await startSampleUpstream(t)
  const resolveAt = async (h: Awaited<ReturnType<typeof harness>>, time: string): Promise<Resolution> =>
    await h.source.resolve({ ...P, time: at(time), accountId: h.account })

  t.test('NOMADS "not present" page, 404, 403: remembered, catalog refreshed, resolved again', async (t) => {
    const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } })
    const r = await resolveAt(h, '2020-08-04T21:00:00Z') // tie 18:00 / 00:00 → 08-05 00:00 (f012)
    t.equal(r.unitKey, 'gfs/2020080412/f012')
    const undo = server.fail({ match: /gfs\.t12z\.pgrb2\.0p25\.f012(\.idx)?$/, mode: 'not_present' })
    t.teardown(undo)
    const u = await h.source.fetch(r, { accountId: h.account })
    t.equal(u.unitKey, 'gfs/2020080412/f006', 'the next-nearest time serves instead')
    t.equal((await h.store.allowance(h.account)).upstream_attempts, 2, 'each attempt charged')
    t.ok(h.log.lines.some((l) => /lacks run 2020-08-04T12:00:00Z step 12 h/.test(l)))
    t.equal(
      (await resolveAt(h, '2020-08-04T21:00:00Z')).unitKey,
      'gfs/2020080412/f006',
      'remembered missing for a while'
    )
    t.equal(await metricValue(h.registry, 'aloft_upstream_failures_total', { kind: 'missing' }), 1)

    const gone = server.fail({ match: 'gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f000', mode: 404 })
    t.teardown(gone)
    const lone = await resolveAt(h, '2020-08-15T10:00:00Z')
    t.equal(lone.unitKey, 'gfs/2020081512/f000')
    t.match(
      await rejection(h.source.fetch(lone, { accountId: h.account })),
      { code: 'outside_source_coverage' },
      'nothing else within 3 h: 404'
    )
  })

  t.test('429 and 5xx: retried with backoff, each retry charged, then 503 with Retry-After', async (t) => {
    const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } })
    const undo = server.fail({ match: 'gfs.20200728/12/atmos/gfs.t12z.pgrb2.0p25.f000', mode: 429 })
    t.teardown(undo)
    const r = await resolveAt(h, '2020-07-28T12:00:00Z')
    const e = await rejection<SourceError>(h.source.fetch(r, { accountId: h.account }))
    t.equal(e.code, 'source_busy')
    t.equal(e.retryAfterSeconds, 1, "upstream's Retry-After")
    t.equal((await h.store.allowance(h.account)).upstream_attempts, 3, 'first attempt and two retries charged')
    t.equal(await metricValue(h.registry, 'aloft_upstream_failures_total', { kind: 'throttled' }), 3)
    undo()

    const flaky = server.fail({ match: 'gfs.20200721/12/atmos/gfs.t12z.pgrb2.0p25.f000', mode: 500, times: 2 })
    t.teardown(flaky)
    const ok = await h.source.fetch(await resolveAt(h, '2020-07-21T12:00:00Z'), { accountId: h.account })
    t.equal(ok.unitKey, 'gfs/2020072112/f000', 'a 500 twice, then served on the third attempt')
    t.equal((await h.store.allowance(h.account)).upstream_attempts, 6)

    const down = server.fail({ match: 'gfs.20200722/06/atmos/gfs.t06z.pgrb2.0p25.f000', mode: 503 })
    t.teardown(down)
    const h1 = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl }, fetch: { retries: 0 } })
    t.match(
      await rejection(h1.source.fetch(await resolveAt(h1, '2020-07-22T06:00:00Z'), { accountId: h1.account })),
      { code: 'source_busy', retryAfterSeconds: 1 }
    )
    t.equal((await h1.store.allowance(h1.account)).upstream_attempts, 1)
  })

  t.test('timeouts and broken connections: retried, then 503; no hang', async (t) => {
    const h = await harness(t, {
      setting: { kind: 'mirror', location: server.bucketUrl }, requestTimeoutMs: 150, fetch: { retries: 1 }
    })
    const r = await resolveAt(h, '2020-08-15T18:00:00Z')
    const slow = server.fail({ match: 'gfs.t12z.pgrb2.0p25.f006', mode: { slowMs: 400 } })
    t.teardown(slow)
    const e = await rejection<SourceError>(h.source.fetch(r, { accountId: h.account }))
    t.equal(e.code, 'source_busy')
    t.equal(e.retryAfterSeconds, 7, 'the configured Retry-After when upstream gave none')
    // ended by its timeouts, not by the slow answers (a hang would end at the file's timeout)
    t.equal(await metricValue(h.registry, 'aloft_upstream_failures_total', { kind: 'timeout' }), 2,
      'both attempts ended by their timeout')
    slow()

    const reset = server.fail({ match: 'gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f000', mode: 'reset' })
    t.teardown(reset)
    t.match(
      await rejection(h.source.fetch(await resolveAt(h, '2020-08-15T12:00:00Z'), { accountId: h.account })),
      { code: 'source_busy' }
    )
    t.equal(await metricValue(h.registry, 'aloft_upstream_failures_total', { kind: 'network' }), 2)
  })

  t.test('truncated bytes, an HTML page, a wrong run: 502 unusable_source_column', async (t) => {
    const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } })
    const cut = server.fail({ match: 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f000', mode: 'truncated' })
    t.teardown(cut)
    const e = await rejection<SourceError>(
      h.source.fetch(await resolveAt(h, '2020-08-04T12:00:00Z'), { accountId: h.account })
    )
    t.equal(e.code, 'unusable_source_column')
    t.match(e.detail, /not usable GRIB2/)
    t.equal((await h.store.allowance(h.account)).upstream_attempts, 1, 'not retried')
    cut()
    t.notOk(h.source.onDisk('gfs/2020080412/f000'), 'nothing cached')
  })

  t.test('bounded queue: beyond it source_busy at once; other units still served', async (t) => {
    const h = await harness(t, {
      setting: { kind: 'mirror', location: server.bucketUrl },
      requestTimeoutMs: 3000,
      fetch: { concurrency: 1, maxQueue: 1 }
    })
    const slow = server.fail({
      match: /^\/gfs\.2020072[12]\/\d\d\/atmos\/gfs\.t\d\dz\.pgrb2\.0p25\.f000$/, mode: { slowMs: 300 }
    })
    t.teardown(slow)
    const a = h.source.fetch(await resolveAt(h, '2020-07-21T12:00:00Z'), { accountId: h.account })
    const b = h.source.fetch(await resolveAt(h, '2020-07-22T06:00:00Z'), { accountId: h.account })
    await new Promise((resolve) => setTimeout(resolve, 50))
    t.same(h.source.queue, { active: 1, waiting: 1 })
    t.equal(await metricValue(h.registry, 'aloft_upstream_fetch_queue_depth'), 1)
    const c = await rejection<SourceError>(
      h.source.fetch(await resolveAt(h, '2020-07-28T12:00:00Z'), { accountId: h.account })
    )
    t.equal(c.code, 'source_busy')
    t.ok(c.retryAfterSeconds! >= 1)
    t.equal((await h.store.allowance(h.account)).upstream_attempts, 1, 'the refused unit was not charged')
    const [ua, ub] = await Promise.all([a, b])
    t.equal(ua.unitKey, 'gfs/2020072112/f000')
    t.equal(ub.unitKey, 'gfs/2020072206/f000')
    t.same(h.source.queue, { active: 0, waiting: 0 })
  })

  t.test('a failing unit does not hold up other units', async (t) => {
    // the slow unit's answer takes 3 s, well inside its request's timeout: the order of events is the test
    const h = await harness(t, {
      setting: { kind: 'mirror', location: server.bucketUrl }, requestTimeoutMs: 20_000, fetch: { retries: 0 }
    })
    const [slowUnit, otherUnit] = [
      await resolveAt(h, '2020-08-29T06:00:00Z'),
      await resolveAt(h, '2020-08-15T12:00:00Z')
    ]
    const stuck = server.fail({
      match: /^\/gfs\.20200829\/06\/atmos\/gfs\.t06z\.pgrb2\.0p25\.f000$/, mode: { slowMs: 3000 }
    })
    t.teardown(stuck)
    const order: string[] = []
    const slowOne = h.source.fetch(slowUnit, { accountId: h.account }).finally(() => order.push('slow'))
    const other = await h.source.fetch(otherUnit, { accountId: h.account }).finally(() => order.push('other'))
    t.equal(other.unitKey, 'gfs/2020081512/f000')
    t.same(order, ['other'], 'served while the other unit is still waiting on upstream')
    t.equal((await slowOne).unitKey, 'gfs/2020082906/f000', 'and the slow one arrives in its own time')
  })
})

t.test('allowance: spent before an attempt is a 429; ' +
  'joined requests of another account still get the data', async (t) => {
  const { server } = await startSampleUpstream(t, { only: ['gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'] })
  const store = new MemoryStore({ dailyAllowance: 0, ratePerSecond: 100, rateBurst: 100 })
  const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl }, store })
  const e = await rejection<SourceError>(
    h.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h.account })
  )
  t.equal(e.code, 'daily_allowance_exhausted')
  // fetch without the resolve check: the reserve refuses, no upstream request
  const rich = new MemoryStore({ dailyAllowance: 5, ratePerSecond: 100, rateBurst: 100 })
  const h2 = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl }, store: rich })
  const r = await h2.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h2.account })
  const poor = (await rich.createAccount('poor')).id
  for (let k = 0; k < 5; k++) await rich.reserve(poor)
  const [first, joined] = await Promise.allSettled([
    h2.source.fetch(r, { accountId: poor }),
    h2.source.fetch(r, { accountId: h2.account })
  ])
  t.equal(first.status, 'rejected')
  t.match((first as PromiseRejectedResult).reason, { code: 'daily_allowance_exhausted' })
  t.equal(joined.status, 'fulfilled', 'the other account fetched on its own allowance')
  t.equal((await rich.allowance(h2.account)).upstream_attempts, 1)
})

t.test('decoded values of a fetched unit equal the file\'s', async (t) => {
  const { server } = await startSampleUpstream(t, {
    idx: true, only: ['gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f006']
  })
  const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } })
  const u = await h.source.fetch(
    await h.source.resolve({ ...P, time: at('2020-08-15T18:00:00Z'), accountId: h.account }),
    { accountId: h.account }
  )
  const t500 = u.fields.find((f) => f.name === 'TMP' && f.level.value === 50000)!
  const values = decodeField(u.bytes, t500)
  t.equal(values.length, 49 * 33)
  t.ok(values.every((v) => v > 230 && v < 280), '500 hPa temperatures in K')
})
