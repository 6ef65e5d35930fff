// The public-mode soak, short (bench/public-soak.ts; `npm run fuzz` runs 8 addresses × 128
// connections for 60 s): strangers sending mixed Tawhiri-path requests without pause, a fifth of
// them leaving before the answer, while a key holder, an honest stranger and /readyz are served.
import t from 'tap'
import { runPublicSoak } from '../../bench/public-soak.js'

t.test('strangers flooding the Tawhiri paths: everyone else served, only readable refusals', async (t) => {
  // a burst of 8: 32 connections an address are more than it may have answered and waiting at once
  const report = await runPublicSoak({ seconds: 2, addresses: 2, connections: 32, seed: 5,
    env: { ALOFT_PUBLIC_RATE_BURST: '8' } })
  t.same(report.failures, [], 'no failure')
  t.ok(report.strangers.ok > 0, `strangers are served at their rate (${report.strangers.ok} answered)`)
  t.ok((report.strangers.byStatus['429'] ?? 0) > 0, 'and refused beyond it')
  t.equal(report.keyHolder.ok, report.keyHolder.requests, `the key holder: p99 ${report.keyHolder.p99Ms.toFixed(1)} ms`)
  t.equal(report.unreadable, 0, 'no 5xx but Tawhiri\'s 503 with Retry-After')
  t.comment(`RSS ${report.rssMb.before} → ${report.rssMb.max} → ${report.rssMb.after} MB`)
})
