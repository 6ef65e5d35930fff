// The data path's refusals through HTTP, in docs/DESIGN.md §3's order: 404 outside the source's area or
// time, 429 when the allowance is spent and nothing cached serves, 502/503 from upstream, 409.
import t from 'tap'
import { writeFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { startTestService, expectProblem, assertSchema } from '../helpers/service.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { AtmosphereResponse } from '../../src/contract/schemas.js'

const warsaw = {
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [1000, 3000], altitude_reference: 'agl'
}
const profile = (url: string, key: string, body: unknown) => fetch(`${url}/v1/atmosphere/profile`, {
  method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
})

const svc = await startTestService(t)
const { key } = await svc.newAccount()

t.test('a point outside the sample area is a 404 outside_source_coverage', async (t) => {
  await expectProblem(
    t,
    await profile(svc.url, key, { ...warsaw, latitude: 40, longitude: 20 }),
    { status: 404, code: 'outside_source_coverage' }
  )
})

t.test('a point that rounds past the grid edge is a 404; one that rounds onto it is served', async (t) => {
  // The sample's rows run 48…56°N every 0.25°: 56.13 rounds to 56.25 (no such row), 56.12 to 56.
  await expectProblem(
    t,
    await profile(svc.url, key, { ...warsaw, latitude: 56.13 }),
    { status: 404, code: 'outside_source_coverage' }
  )
  const edge = await profile(svc.url, key, { ...warsaw, latitude: 56.12 })
  t.equal(edge.status, 200)
  t.equal((await edge.json() as any).provenance.sampled_latitude, 56)
})

t.test('a time in a gap of the sample is a 404 naming the nearest available times', async (t) => {
  const problem = await expectProblem(
    t,
    await profile(svc.url, key, { ...warsaw, time: '2020-08-10T00:00:00Z' }),
    { status: 404, code: 'outside_source_coverage' }
  )
  t.match(problem.detail, /2020-08-0[45]T|2020-08-15T/)
})

t.test('a height outside the column is a 409 with the coverage', async (t) => {
  const problem = await expectProblem(
    t,
    await profile(svc.url, key, { ...warsaw, altitudes_m: [1000, 2] }),
    { status: 409, code: 'outside_vertical_range' }
  )
  t.match(problem.coverage, {
    minimum_msl_m: Number, maximum_msl_m: Number, minimum_agl_m: Number, maximum_agl_m: Number
  })
  t.ok(problem.coverage.minimum_agl_m > 2)
})

t.test('the allowance: 429 only when a fetch is needed and nothing cached serves', async (t) => {
  const tight = await startTestService(t, { env: { ALOFT_DAILY_ALLOWANCE: '1' } })
  const account = await tight.newAccount()
  t.equal((await profile(tight.url, account.key, warsaw)).status, 200, 'the first unit is fetched (one attempt)')
  t.equal(
    (await profile(tight.url, account.key, { ...warsaw, latitude: 50 })).status,
    200,
    'the same unit again: cached, free'
  )
  const refused = await profile(tight.url, account.key, { ...warsaw, time: '2020-08-15T12:00:00Z' })
  t.match(refused.headers.get('retry-after'), /^[1-9]\d*$/)
  await expectProblem(t, refused, { status: 429, code: 'daily_allowance_exhausted' })
  const usage = await (
    await fetch(`${tight.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': account.key } })
  ).json() as any
  t.match(usage, { upstream_attempts: 1, remaining: 0 })
  const other = await tight.newAccount('someone else')
  t.equal(
    (await profile(tight.url, other.key, warsaw)).status,
    200,
    'a cached unit serves an account with allowance left, uncharged'
  )
  const otherUsage = await (
    await fetch(`${tight.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': other.key } })
  ).json() as any
  t.equal(otherUsage.upstream_attempts, 0)
})

t.test('404 outside coverage wins over an exhausted allowance', async (t) => {
  const none = await startTestService(t, { env: { ALOFT_DAILY_ALLOWANCE: '0' } })
  const account = await none.newAccount()
  await expectProblem(
    t,
    await profile(none.url, account.key, { ...warsaw, latitude: 30 }),
    { status: 404, code: 'outside_source_coverage' }
  )
  await expectProblem(
    t,
    await profile(none.url, account.key, warsaw),
    { status: 429, code: 'daily_allowance_exhausted' }
  )
})

t.test('upstream answers HTML instead of GRIB2: 502 unusable_source_column', async (t) => {
  const up = await startSampleUpstream(t, { only: ['gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'] })
  const target = join(up.root, 'gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f000')
  await mkdir(join(up.root, 'gfs.20200815/12/atmos'), { recursive: true })
  await writeFile(target, '<html><head><title>502 Bad Gateway</title></head><body>proxy error</body></html>')
  const bucket = await startTestService(t, { env: { ALOFT_SOURCE: `mirror:${up.server.bucketUrl}` } })
  const account = await bucket.newAccount()
  await expectProblem(
    t,
    await profile(bucket.url, account.key, { ...warsaw, time: '2020-08-15T12:00:00Z' }),
    { status: 502, code: 'unusable_source_column' }
  )
  t.equal((await profile(bucket.url, account.key, warsaw)).status, 200, 'other units are still served')
})

t.test('upstream sends truncated bytes: 502 unusable_source_column', async (t) => {
  const up = await startSampleUpstream(t)
  up.server.fail({ match: 'gfs.20200728', mode: 'truncated' })
  const bucket = await startTestService(t, { env: { ALOFT_SOURCE: `mirror:${up.server.bucketUrl}` } })
  const account = await bucket.newAccount()
  await expectProblem(
    t,
    await profile(bucket.url, account.key, { ...warsaw, time: '2020-07-28T12:00:00Z' }),
    { status: 502, code: 'unusable_source_column' }
  )
})

t.test('upstream keeps failing: 503 source_busy with Retry-After, ' +
  'and other requests are answered meanwhile', async (t) => {
  const up = await startSampleUpstream(t)
  const bucket = await startTestService(t, { env: { ALOFT_SOURCE: `mirror:${up.server.bucketUrl}` } })
  const account = await bucket.newAccount()
  t.equal((await profile(bucket.url, account.key, warsaw)).status, 200, 'a unit fetched before the outage')
  up.server.fail({ match: 'gfs.20200815', mode: 500 })
  const failing = profile(bucket.url, account.key, { ...warsaw, time: '2020-08-15T12:00:00Z' })
  const meanwhile = await profile(bucket.url, account.key, warsaw)
  t.equal(meanwhile.status, 200, 'a cached profile is answered while the failing fetch retries')
  assertSchema(t, AtmosphereResponse, await meanwhile.json())
  t.equal((await fetch(`${bucket.url}/healthz`)).status, 200)
  const res = await failing
  t.match(res.headers.get('retry-after'), /^[1-9]\d*$/)
  await expectProblem(t, res, { status: 503, code: 'source_busy' })
})
