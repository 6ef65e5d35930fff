// The golden profiles through HTTP, end to end, from each kind of source: a mirror directory
// (the bundled sample), the bucket layout over HTTP (local NOAA stand-in) and the grib filter.
import t, { type Test } from 'tap'
import { readFile } from 'node:fs/promises'
import { startTestService, assertSchema } from '../helpers/service.js'
import { startSampleUpstream, buildSampleTree } from '../helpers/upstream.js'
import { AtmosphereResponse } from '../../src/contract/schemas.js'
import { repoUrl } from '../helpers/paths.js'
import { closeTo } from '../helpers/golden.js'

interface Case {
  name: string
  run: string
  forecast_hour: number
  request: Record<string, unknown>
  expected: Record<string, any>
}

const load = async (name: string): Promise<Case[]> =>
  JSON.parse(await readFile(repoUrl(`test/fixtures/profiles/${name}`), 'utf8')) as Case[]


async function checkCase (t: Test, url: string, key: string, c: Case, humidity: string): Promise<void> {
  const res = await fetch(`${url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(c.request)
  })
  const body = await res.json() as any
  if (c.expected.error === 'outside_vertical_range') {
    t.equal(res.status, 409, '409 outside_vertical_range')
    t.equal(body.code, 'outside_vertical_range')
    for (const [k, v] of Object.entries(c.expected.coverage)) closeTo(t, body.coverage[k], v as number, k, 'coverage')
    return
  }
  t.equal(res.status, 200, JSON.stringify(body).slice(0, 300))
  assertSchema(t, AtmosphereResponse, body)
  t.equal(body.provenance.model_run_at, c.run, 'model run')
  t.equal(body.provenance.forecast_hour, c.forecast_hour, 'forecast hour')
  t.equal(body.provenance.quality, c.forecast_hour === 0 ? 'analysis' : 'forecast')
  t.equal(body.provenance.specific_humidity_source, humidity)
  t.match(body.provenance.source_sha256, /^[0-9a-f]{64}$/)
  t.equal(body.provenance.sampled_latitude, c.expected.sampled_latitude)
  t.equal(body.provenance.sampled_longitude, c.expected.sampled_longitude)
  closeTo(
    t,
    body.model_ground_elevation_m_msl,
    c.expected.model_ground_elevation_m_msl,
    'model_ground_elevation_m_msl',
    'ground'
  )
  closeTo(t, body.ground_elevation_m_msl, c.expected.ground_elevation_m_msl, 'ground_elevation_m_msl', 'ground')
  t.equal(body.ground_source, c.request.ground_elevation_m_msl == null ? 'model' : 'caller')
  for (const [k, v] of Object.entries(c.expected.coverage)) closeTo(t, body.coverage[k], v as number, k, 'coverage')
  t.equal(body.levels.length, c.expected.levels.length)
  c.expected.levels.forEach((level: Record<string, number>, n: number) => {
    for (const [k, v] of Object.entries(level)) closeTo(t, body.levels[n][k], v, k, `level ${n}`)
  })
}

const rhCases = await load('cases.json')
const spfhCases = await load('cases-spfh.json')

t.test('mirror directory (the bundled sample): every golden case', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  for (const c of rhCases) await t.test(c.name, (t) => checkCase(t, svc.url, key, c, 'rh_inverted_ncep_upp'))
})

t.test('mirror directory holding the derived SPFH file: every golden case', async (t) => {
  const root = await buildSampleTree(t, { spfh: true })
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `mirror:${root}` } })
  const { key } = await svc.newAccount()
  for (const c of spfhCases) await t.test(c.name, (t) => checkCase(t, svc.url, key, c, 'spfh'))
})

t.test('bucket layout over HTTP with .idx byte ranges: every golden case', async (t) => {
  const up = await startSampleUpstream(t, { idx: true })
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `mirror:${up.server.bucketUrl}` } })
  const { key } = await svc.newAccount()
  for (const c of rhCases) await t.test(c.name, (t) => checkCase(t, svc.url, key, c, 'rh_inverted_ncep_upp'))
  t.ok(up.server.requests.some((r) => r.range !== null), 'byte ranges were asked for')
})

t.test('NOMADS grib filter: every golden case', async (t) => {
  const up = await startSampleUpstream(t)
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${up.server.filterUrl}` } })
  const { key } = await svc.newAccount()
  for (const c of rhCases) await t.test(c.name, (t) => checkCase(t, svc.url, key, c, 'rh_inverted_ncep_upp'))
  t.ok(up.server.requests.some((r) => r.url.includes('subregion=')), 'sub-regions were asked for')
})

t.test('levels come back in request order, with both references filled in', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const altitudes = [10000, 1500, 5000, 3000]
  const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      latitude: 50.06,
      longitude: 19.94,
      time: '2020-08-04T18:00:00Z',
      altitudes_m: altitudes,
      altitude_reference: 'msl',
      ground_elevation_m_msl: 219
    })
  })
  const body = await res.json() as any
  t.equal(res.status, 200)
  assertSchema(t, AtmosphereResponse, body)
  t.same(body.levels.map((l: any) => l.altitude_msl_m), altitudes)
  t.same(body.levels.map((l: any) => l.altitude_agl_m), altitudes.map((a) => a - 219))
  t.equal(body.ground_source, 'caller')
  t.equal(body.supplied_ground_elevation_m_msl, 219)
  t.ok(body.levels[0].pressure_pa < body.levels[2].pressure_pa, 'pressure falls with height')
})
