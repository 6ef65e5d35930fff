// The benchmarks' arithmetic: nearest-rank percentiles and summaries (no timing here).
import t from 'tap'
import { percentile, summarize } from '../../bench/lib/stats.js'

t.test('percentile is the nearest rank of a sorted array', async (t) => {
  const xs = Float64Array.from({ length: 100 }, (_, k) => k + 1) // 1..100
  t.equal(percentile(xs, 50), 50)
  t.equal(percentile(xs, 99), 99)
  t.equal(percentile(xs, 100), 100)
  t.equal(percentile(xs, 0), 1)
  t.equal(percentile([7], 99), 7)
  t.ok(Number.isNaN(percentile([], 50)))
})

t.test('summarize sorts a copy and reports count, mean, p50, p99 and max', async (t) => {
  const samples = [5, 1, 4, 2, 3]
  const s = summarize(samples)
  t.same(s, { count: 5, mean: 3, p50: 3, p90: 5, p99: 5, max: 5 })
  t.same(samples, [5, 1, 4, 2, 3], 'input untouched')
  t.equal(summarize([]).count, 0)
})
