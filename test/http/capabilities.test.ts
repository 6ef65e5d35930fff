// Capabilities list the runs a source holds with their forecast hours, so a caller learns the
// valid times there are without meeting 404s: all of a mirror's (the demo's nine), the newest
// two days of NOAA's or a grib filter's.
import t from 'tap'
import { Capabilities } from '../../src/contract/schemas.js'
import { validTimesOf } from '../../src/source/index.js'
import { assertSchema, startTestService } from '../helpers/service.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { freePort } from '../helpers/redis.js'

/** The valid times of the bundled sample (data/sample), as README's demo section lists them. */
const SAMPLE_TIMES = ['2020-07-21T12:00:00Z', '2020-07-22T06:00:00Z', '2020-07-28T12:00:00Z', '2020-08-04T12:00:00Z',
  '2020-08-04T18:00:00Z', '2020-08-05T00:00:00Z', '2020-08-15T12:00:00Z', '2020-08-15T18:00:00Z',
  '2020-08-29T06:00:00Z']

async function capabilities (url: string): Promise<Capabilities> {
  return await (await fetch(`${url}/v1/atmosphere/capabilities`)).json() as Capabilities
}

t.test('a mirror: every run with its forecast hours, compactly', async (t) => {
  const svc = await startTestService(t)
  const caps = await capabilities(svc.url)
  assertSchema(t, Capabilities, caps)
  const coverage = caps.source.time_coverage
  t.same(coverage.runs, [
    { run: '2020-08-29T06:00:00Z', forecast_hours: [{ first: 0, last: 0, every: 1 }] },
    { run: '2020-08-15T12:00:00Z', forecast_hours: [{ first: 0, last: 6, every: 6 }] },
    { run: '2020-08-04T12:00:00Z', forecast_hours: [{ first: 0, last: 12, every: 6 }] },
    { run: '2020-07-28T12:00:00Z', forecast_hours: [{ first: 0, last: 0, every: 1 }] },
    { run: '2020-07-22T06:00:00Z', forecast_hours: [{ first: 0, last: 0, every: 1 }] },
    { run: '2020-07-21T12:00:00Z', forecast_hours: [{ first: 0, last: 0, every: 1 }] }
  ])
  t.equal(coverage.runs_complete, true)
  t.same(validTimesOf(coverage.runs), SAMPLE_TIMES, 'the nine valid times between the first and the last')
})

t.test('a grib filter: the runs of its newest two days, said to be incomplete', async (t) => {
  const up = await startSampleUpstream(t)
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${up.server.filterUrl}` } })
  const coverage = (await capabilities(svc.url)).source.time_coverage
  t.same(coverage.runs.map((r) => r.run), ['2020-08-29T06:00:00Z', '2020-08-15T12:00:00Z'])
  t.equal(coverage.runs_complete, false)
  t.equal(coverage.first_valid_time, '2020-07-21T12:00:00Z', 'the first valid time is still known')
})

t.test('a source that cannot be listed: no runs, and it says so', async (t) => {
  const closed = await freePort()
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:http://127.0.0.1:${closed}/filter` } })
  const caps = await capabilities(svc.url)
  assertSchema(t, Capabilities, caps)
  t.same(caps.source.time_coverage.runs, [])
  t.equal(caps.source.time_coverage.runs_complete, false)
  t.equal(caps.source.status, 'the source cannot be listed right now')
})
