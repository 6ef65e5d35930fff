// The bounded fuzz run, short (bench/fuzz.ts; `npm run fuzz` runs every mutation): hostile Arrow
// streams and JSON bodies against the built server in a process of its own. Never a 5xx, never a
// dead process, each answer within a second (as many more as an ordinary samples request timed beside it
// runs slower than on the project's idle machine), resident memory bounded.
import t from 'tap'
import { runFuzz } from '../../bench/fuzz.js'

t.test('400 hostile bodies: every one answered below 500, within a second, memory bounded', async (t) => {
  const report = await runFuzz({ cases: 400, seed: 7 })
  t.same(report.failures, [], 'no failure')
  t.equal(report.cases, 400)
  t.ok((report.byStatus['400'] ?? 0) > 250, 'most are refused as invalid')
  t.ok((report.byStatus['200'] ?? 0) > 0, 'some mutations still describe points and are answered')
  t.comment(`yardstick ${report.yardstickMs.toFixed(1)} ms, bound ${report.boundMs.toFixed(0)} ms; ` +
    `p99 ${report.p99.toFixed(1)} ms, max ${report.max.toFixed(0)} ms, RSS ${(report.rssBefore / 1048576)
    .toFixed(0)} → ${(report.rssMax / 1048576).toFixed(0)} MB`)
})
