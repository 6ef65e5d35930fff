// Nearest model time and grid point over the 2020 sample runs (docs/DESIGN.md §3), from a mirror
// directory laid out as the bucket: resolve decides before any fetch.
import t from 'tap'
import { SourceError, chooseTime } from '../../src/source/index.js'
import { startSampleUpstream, buildSampleTree } from '../helpers/upstream.js'
import { HOUR, at, harness, rejection } from './helpers.js'

// 2020-08-04 12Z f006 also placed as a newer run with the same valid time (18Z f000), so
// "newest run" and `immediate` have a choice; its bytes say 12Z f006, so fetching it is a 502.
const EXTRA = {
  'gfs.20200804/18/atmos/gfs.t18z.pgrb2.0p25.f000':
    'Porbi96+GFS-forecast-web-app/data/gfs/20200804/12z/gfs.pgrb2.0p25.f006'
}
const P = { latitude: 52.2, longitude: 21.0, quality: 'best_available' as const }

t.test('chooseTime: nearest valid time, ties to the later, newest run first', async (t) => {
  const run = Date.UTC(2020, 7, 4, 12)
  const entries = [{ run, step: 0 }, { run, step: 6 }, { run: run + 6 * HOUR, step: 0 }, { run, step: 12 }]
  const c = chooseTime(entries, run + 3 * HOUR, 3 * HOUR)
  t.equal(c.validTime, run + 6 * HOUR, 'a tie goes to the later valid time')
  t.same(c.candidates, [{ run: run + 6 * HOUR, step: 0 }, { run, step: 6 }], 'newest run first')
  t.throws(() => chooseTime([], run, 3 * HOUR), { code: 'outside_source_coverage' })
  t.throws(
    () => chooseTime(entries, run + 24 * HOUR + 1, 12 * HOUR),
    { code: 'outside_source_coverage', nearestTimes: ['2020-08-05T00:00:00Z'] }
  )
})

t.test('mirror directory: nearest time rules', async (t) => {
  const root = await buildSampleTree(t, { extra: EXTRA })
  const { source, account } = await harness(t, { setting: { kind: 'mirror', location: root } })
  const resolve = async (time: string, quality: 'best_available' | 'immediate' = 'best_available') =>
    await source.resolve({ ...P, time: at(time), quality, accountId: account })

  const tie = await resolve('2020-08-04T15:00:00Z')
  t.equal(tie.validTime.toISOString(), '2020-08-04T18:00:00.000Z', 'tie (3 h each side) goes to the later time')
  t.equal(tie.run.toISOString(), '2020-08-04T18:00:00.000Z', 'newest run for that valid time')
  t.equal(tie.step, 0)
  t.equal(tie.unitKey, 'gfs/2020080418/f000')
  t.equal(tie.substitution, null)

  const zone = await resolve('2020-08-05T00:30:00+01:00')
  t.equal(zone.validTime.toISOString(), '2020-08-05T00:00:00.000Z', '+01:00 is converted: 23:30Z → 00:00Z')
  t.equal(zone.unitKey, 'gfs/2020080412/f012')

  const three = await resolve('2020-08-15T21:00:00Z')
  t.equal(three.validTime.toISOString(), '2020-08-15T18:00:00.000Z', 'exactly 3 h away is served')
  t.equal(three.step, 6)

  t.match(
    await rejection(resolve('2020-08-15T21:00:01Z')),
    { code: 'outside_source_coverage', nearestTimes: ['2020-08-15T18:00:00Z', '2020-08-29T06:00:00Z'] },
    '3 h and 1 s is a 404 naming the nearest times'
  )
  const gap = await rejection<SourceError>(resolve('2020-07-25T00:00:00Z'))
  t.ok(gap instanceof SourceError)
  t.match(
    gap,
    { code: 'outside_source_coverage', nearestTimes: ['2020-07-22T06:00:00Z', '2020-07-28T12:00:00Z'] },
    'a gap in the mirror'
  )
  t.match(gap.detail, /nearest available: 2020-07-22T06:00:00Z, 2020-07-28T12:00:00Z/)
  t.match(
    await rejection(resolve('2021-01-01T00:00:00Z')),
    { code: 'outside_source_coverage', nearestTimes: ['2020-08-29T06:00:00Z'] },
    'after the last run'
  )

  t.equal((await resolve('2020-07-21T12:00:00Z')).step, 0, 'analysis')

  // grid: 48–56N 13–25E at 0.25°, index rounding from the south/west edges
  const r = await source.resolve({
    latitude: 52.125, longitude: 21.125, time: at('2020-08-04T12:00:00Z'), quality: 'best_available', accountId: account
  })
  t.same(r.point, { latitude: 52.25, longitude: 21.25, i: 33, j: 17 }, 'ties go to the larger latitude and longitude')
  const edge = await source.resolve({
    latitude: 47.875, longitude: 12.875, time: at('2020-08-04T12:00:00Z'), quality: 'best_available', accountId: account
  })
  t.same(edge.point, { latitude: 48, longitude: 13, i: 0, j: 0 }, 'half a cell outside still rounds onto the grid')
  t.match(
    await rejection(source.resolve({
      latitude: 47.87, longitude: 20, time: at('2020-08-04T12:00:00Z'), quality: 'best_available', accountId: account
    })),
    { code: 'outside_source_coverage' },
    'rounds south of a regional grid'
  )
  t.match(
    await rejection(source.resolve({
      latitude: 52, longitude: -150, time: at('2020-08-04T12:00:00Z'), quality: 'best_available', accountId: account
    })),
    { code: 'outside_source_coverage', detail: /rounds outside the source's grid/ },
    'far outside'
  )
  await t.rejects(source.resolve({
    latitude: 91, longitude: 0, time: at('2020-08-04T12:00:00Z'), quality: 'best_available', accountId: account
  }), RangeError)

  const d = await source.describe()
  t.equal(d.status, 'ok')
  t.equal(d.firstValidTime, '2020-07-21T12:00:00Z')
  t.equal(d.lastValidTime, '2020-08-29T06:00:00Z')
  t.same(d.coverage, { latitude: { min: 48, max: 56 }, longitude: { min: 13, max: 25 } })
  t.equal(d.levelsPa?.length, 31, 'levels with a full column (RH, UGRD, VGRD on 31)')
  t.equal(d.levelsPa?.[0], 100)
})

t.test('immediate vs best_available, and the cached-run fallback when the allowance is spent', async (t) => {
  const { server } = await startSampleUpstream(t, { extra: EXTRA })
  const { source, account, store } = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl } }, 2)
  const req = (quality: 'best_available' | 'immediate', time = '2020-08-04T18:00:00Z') =>
    ({ ...P, time: at(time), quality, accountId: account })

  // nothing cached: both qualities choose the newest run
  t.equal((await source.resolve(req('immediate'))).unitKey, 'gfs/2020080418/f000')
  // cache the older run (12Z f006) by fetching it directly
  const older = await source.resolve({ ...req('best_available'), time: at('2020-08-04T18:00:00Z') })
  const olderUnit = {
    ...older, unit: { ...older.unit, key: 'gfs/2020080412/f006', run: Date.UTC(2020, 7, 4, 12), step: 6 }
  }
  const got = await source.fetch(olderUnit, { accountId: account })
  t.equal(got.unitKey, 'gfs/2020080412/f006')

  const imm = await source.resolve(req('immediate'))
  t.equal(imm.unitKey, 'gfs/2020080412/f006', 'immediate prefers the cached run for that valid time')
  t.equal(imm.cached, true)
  t.equal(imm.substitution?.reason, 'immediate_cached')
  t.equal(imm.substitution?.newestRun.toISOString(), '2020-08-04T18:00:00.000Z')
  const best = await source.resolve(req('best_available'))
  t.equal(best.unitKey, 'gfs/2020080418/f000', 'best_available still wants the newest run')
  t.equal(best.cached, false)

  // the newest run's bytes say 12Z f006: a reference/forecast time mismatch is a 502
  await t.rejects(source.fetch(best, { accountId: account }), { code: 'unusable_source_column' })
  t.equal((await store.allowance(account)).remaining, 0, 'both attempts charged')

  const spent = await source.resolve(req('best_available'))
  t.equal(spent.unitKey, 'gfs/2020080412/f006', 'allowance spent: a cached run with the same valid time serves')
  t.equal(spent.substitution?.reason, 'allowance_exhausted')
  const e = await rejection<SourceError>(source.resolve(req('best_available', '2020-08-15T12:00:00Z')))
  t.equal(e.code, 'daily_allowance_exhausted', 'nothing cached for that valid time: 429')
  const toMidnight = Math.ceil(
    (Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1) - Date.now()) / 1000
  )
  t.ok(Math.abs(e.retryAfterSeconds! - toMidnight) <= 2, 'Retry-After runs to 00:00 UTC')
  await t.rejects(
    source.resolve(req('best_available', '2020-07-25T00:00:00Z')),
    { code: 'outside_source_coverage' },
    '404 wins over 429'
  )

  // the caller's decoded cache counts as cached too
  const decoded = await source.resolve(req('best_available', '2020-08-15T12:00:00Z'),
    (key) => key === 'gfs/2020081512/f000')
  t.equal(decoded.cached, true)
})

t.test('catalog lists days newest first and stops at the ideal valid time', async (t) => {
  const { Catalog } = await import('../../src/source/catalog.js')
  const day = (d: number): number => Date.UTC(2024, 0, d)
  const listed: string[] = []
  const held: Record<string, Array<{ run: number, step: number }>> = {
    20240101: [{ run: day(1), step: 0 }, { run: day(1) + 18 * HOUR, step: 42 }],
    20240102: [{ run: day(2), step: 0 }, { run: day(2) + 6 * HOUR, step: 6 }],
    20240103: [{ run: day(3), step: 6 }] // a gap at 2024-01-03T12
  }
  const catalog = new Catalog({
    listDays: async () => Object.keys(held),
    listDay: async (d) => { listed.push(d); return held[d] }
  })
  const near = await catalog.around(day(2) + 12 * HOUR + 20 * 60_000, 3 * HOUR) // 12:20 → ideal 12:00
  t.same(listed, ['20240102'], 'the newest day of the window held the ideal hour (12:00): no older day listed')
  t.ok(near.some((e) => e.run === day(2) + 6 * HOUR && e.step === 6))
  listed.length = 0
  const far = await catalog.around(day(3) + 12 * HOUR, 3 * HOUR) // no 12:00 anywhere: the whole window
  t.same(
    listed,
    ['20240103', '20240101'],
    'no 12:00 held: newest first through the whole window (2024-01-02 from the cache)'
  )
  t.same(
    chooseTime(far, day(3) + 12 * HOUR, 3 * HOUR).candidates,
    [{ run: day(1) + 18 * HOUR, step: 42 }],
    'a 42 h forecast from an older run fills the gap'
  )
})

t.test('a cached run the catalog did not list still serves immediate requests', async (t) => {
  const root = await buildSampleTree(t, { only: ['gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'] })
  const { source, account } = await harness(t, { setting: { kind: 'mirror', location: root } })
  const decoded = (key: string): boolean => key === 'gfs/2020080400/f018'
  const r = await source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), quality: 'immediate', accountId: account },
    decoded)
  t.equal(r.unitKey, 'gfs/2020080400/f018', 'a cached older run with the same valid time')
  t.equal(r.substitution?.reason, 'immediate_cached')
  t.equal(r.substitution?.newestRun.toISOString(), '2020-08-04T12:00:00.000Z')
  const best = await source.resolve({
    ...P, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: account
  }, decoded)
  t.equal(best.unitKey, 'gfs/2020080412/f006')
})
