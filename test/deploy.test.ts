// The deployment docs/DEPLOY.md describes, short (bench/deploy-check.ts; `npm run deploy-check` is
// the long one): Debian's nginx with deploy/nginx/aloft.conf and a self-signed certificate made by
// openssl, in front of two built instances on one persistent Redis and one cache directory. Over
// HTTPS: public clients forwarded from different addresses get their own buckets, a cold unit is
// fetched and charged once, an instance killed with SIGKILL under load costs no failed request.
import t from 'tap'
import { existsSync } from 'node:fs'
import { formatDeploy, runDeployCheck } from '../bench/deploy-check.js'
import { NGINX } from '../bench/lib/nginx.js'

const skip = existsSync(NGINX)
  ? false
  : `no nginx at ${NGINX} (Debian's nginx package, or NGINX_PATH): the deployment test needs it`
if (skip !== false) t.comment(skip)

t.test('nginx with TLS in front of two instances on one Redis', { skip, timeout: 120_000 }, async (t) => {
  const report = await runDeployCheck({ short: true })
  t.comment(formatDeploy(report, (header, rows) => [header, ...rows].map((r) => r.join(' · ')).join('\n')))
  t.same(report.buckets.a, [200, 200, 200, 429], 'one forwarded client: its burst of 3, then its own 429')
  t.same(report.buckets.b, [200, 200, 200, 429], 'another: a bucket of its own')
  t.same(report.buckets.spoofed, [429], 'what a client writes in X-Forwarded-For itself changes nothing')
  t.same(report.cold.answers, [200, 200, 200, 200, 200, 200])
  t.equal(report.cold.upstreamRequests, 1, 'the cold unit fetched once through both instances')
  t.equal(report.cold.charged, 1, 'and charged once')
  t.ok(report.kill.requests > 100, `${report.kill.requests} flights asked under load`)
  t.equal(report.kill.failed, 0, `none failed though an instance was killed (${report.kill.events.join('; ')})`)
  t.equal(report.keysLogged, 0, 'nginx\'s access log holds no key')
  t.same(report.failures, [])
})
