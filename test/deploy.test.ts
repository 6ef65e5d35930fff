// The deployment docs/DEPLOY.md describes, short (bench/deploy-check.ts; `npm run deploy-check` is
// the long one): Debian's nginx with deploy/nginx/aloft.conf and a self-signed certificate made by
// openssl, in front of two built instances (one a host of two processes) on one persistent Redis and
// one cache directory. Over HTTPS: public clients forwarded from different addresses get their own
// buckets, a cold unit is fetched and charged once, a unit one process fetched serves every process,
// and under keep-alive load a rolling restart, an instance killed and a process killed cost the clients
// nothing a retry cannot fix (a process stalled: the long run, and test/cluster/host-replace.test.ts).
import t from 'tap'
import { existsSync } from 'node:fs'
import { formatDeploy, runDeployCheck } from '../bench/deploy-check.js'
import { NGINX } from '../bench/lib/nginx.js'

const skip = existsSync(NGINX)
  ? false
  : `no nginx at ${NGINX} (Debian's nginx package, or NGINX_PATH): the deployment test needs it`
if (skip !== false) t.comment(skip)

t.test('nginx with TLS in front of two instances on one Redis and one cache directory', { skip, timeout: 240_000 },
  async (t) => {
    const report = await runDeployCheck({ short: true })
    t.comment(formatDeploy(report, (header, rows) => [header, ...rows].map((r) => r.join(' · ')).join('\n')))
    t.same(report.buckets.a, [200, 200, 200, 429], 'one forwarded client: its burst of 3, then its own 429')
    t.same(report.buckets.b, [200, 200, 200, 429], 'another: a bucket of its own')
    t.same(report.buckets.spoofed, [429], 'what a client writes in X-Forwarded-For itself changes nothing')
    t.same(report.cold.answers, [200, 200, 200, 200, 200, 200])
    t.equal(report.cold.upstreamRequests, 1, 'the cold unit fetched once through both instances')
    t.equal(report.cold.charged, 1, 'and charged once')
    t.equal(report.shared.remaining, 0, 'a caller\'s allowance spent by a fetch through one process of A')
    t.same([...report.shared.answers, ...report.shared.direct].filter((s) => s !== 200), [],
      `the unit it fetched is cached for every process of both instances (${report.shared.answers.join(' ')}; ` +
      `directly ${report.shared.direct.join(' ')})`)
    t.same([report.shared.upstreamRequests, report.shared.charged], [0, 0], 'nothing fetched or charged again')
    // the load went on through the restarts (a figure of how many would follow the machine's speed)
    t.ok(report.rolling.duringFaults >= 12, `${report.rolling.duringFaults} answers while the instances restarted`)
    t.equal(report.rolling.failed, 0, `a rolling restart of both instances: none failed (${
      report.rolling.events.join('; ')})`)
    t.ok(report.kill.failed <= 2, `an instance killed: at most 2 failed (${report.kill.failed}: ${
      JSON.stringify(report.kill.statuses)})`)
    t.equal(report.process.direct['left hanging'] ?? 0, 0, `a process killed: no request to its instance left ` +
      `hanging (${JSON.stringify(report.process.direct)})`)
    t.ok(report.process.failed <= 2, `and through nginx at most 2 failed (${report.process.failed})`)
    t.equal(report.keysLogged, 0, 'nginx\'s access log holds no key')
    t.same(report.failures, [])
  })
