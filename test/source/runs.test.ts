// Runs with their forecast hours as ranges: what capabilities publish, compact and exact.
import t from 'tap'
import { hourRanges, rangeHours, runsOf, validTimesOf } from '../../src/source/index.js'

const expand = (hours: number[]): number[] => hourRanges(hours).flatMap(rangeHours)

t.test('NOAA\'s 209 steps of a run are two ranges', async (t) => {
  const hours = [...Array.from({ length: 121 }, (_, h) => h), ...Array.from({ length: 88 }, (_, k) => 123 + 3 * k)]
  t.same(hourRanges(hours), [{ first: 0, last: 120, every: 1 }, { first: 123, last: 384, every: 3 }])
})

t.test('a lone hour is a range of one, an empty list none', async (t) => {
  t.same(hourRanges([6]), [{ first: 6, last: 6, every: 1 }])
  t.same(hourRanges([]), [])
})

t.test('ranges stand for exactly the hours given, in any order, repeats once', async (t) => {
  for (const hours of [[0, 6, 12], [12, 0, 6, 6], [0, 6, 7, 8, 20], [3, 9, 10, 30, 33, 36, 37]]) {
    t.same(expand(hours), [...new Set(hours)].sort((a, b) => a - b), hours.join(','))
  }
})

t.test('runs come newest first; their valid times ascending, once each', async (t) => {
  const H = 3_600_000
  const run12 = Date.UTC(2020, 7, 4, 12)
  const run18 = Date.UTC(2020, 7, 4, 18)
  const runs = runsOf([
    { run: run12, step: 0 }, { run: run12, step: 6 }, { run: run18, step: 0 }, { run: run12, step: 12 }
  ])
  t.same(runs, [
    { run: '2020-08-04T18:00:00Z', forecast_hours: [{ first: 0, last: 0, every: 1 }] },
    { run: '2020-08-04T12:00:00Z', forecast_hours: [{ first: 0, last: 12, every: 6 }] }
  ])
  t.same(validTimesOf(runs), [run12, run12 + 6 * H, run12 + 12 * H].map((ms) => new Date(ms).toISOString()
    .replace('.000Z', 'Z')))
})
