// The chaos suite's reconciliation on hosts of two processes each (docs/DESIGN.md §11): accounts,
// allowances and rate limits live in the one Redis every process shares, so each account's charges
// still equal what reached the upstream for it, and a process killed under load is replaced while
// its host keeps answering. Needs `npm run build` (npm test builds first).
import t from 'tap'
import { runChaos } from '../../bench/chaos.js'

t.setTimeout(120_000)

t.test('two processes per instance: one killed under load, charges exact, nothing but its in-flight lost',
  async (t) => {
    const report = await runChaos({ short: true, processes: 2,
      only: ['one process of an instance killed', 'redis down'] })
    t.same(report.failures, [], 'no failure')
    const killed = report.phases.find((p) => p.phase.startsWith('one process'))!
    t.equal(killed.status500, 0, 'no 500 while a process was replaced')
    t.ok(killed.recoverySeconds !== null, `recovered (${String(killed.recoverySeconds)} s)`)
    for (const r of report.reconcile) {
      t.ok(r.upstreamRequests > 0, `account ${r.account} made cold requests`)
      t.equal(r.charged, r.upstreamRequests, `account ${r.account}: charged as many attempts as reached the upstream`)
    }
  })
