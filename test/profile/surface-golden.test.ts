// The surface layer (docs/DESIGN.md §8) end to end: the golden profiles of
// test/fixtures/profiles/cases-surface.json (an independent ecCodes + numpy reference,
// scripts/surface-reference.py) through HTTP, from the bundled mirror, from mirrors holding files
// that lack some near-ground fields, and through the bucket's .idx byte ranges and the grib filter.
import t, { type Test } from 'tap'
import { readFile } from 'node:fs/promises'
import { startTestService, assertSchema } from '../helpers/service.js'
import { buildSampleTree, startSampleUpstream } from '../helpers/upstream.js'
import { AtmosphereResponse } from '../../src/contract/schemas.js'
import { repoUrl } from '../helpers/paths.js'
import { closeTo } from '../helpers/golden.js'

interface Case {
  name: string
  file: string
  run: string
  forecast_hour: number
  request: Record<string, unknown>
  expected: Record<string, any>
}

const cases = JSON.parse(await readFile(repoUrl('test/fixtures/profiles/cases-surface.json'), 'utf8')) as Case[]
const F006 = 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'
const METHOD = 'linear_u_v_temperature_specific_humidity_log_pressure_in_geometric_height' +
  '_with_surface_layer_power_law_wind_below_10m'


async function checkCase (t: Test, url: string, key: string, c: Case): Promise<void> {
  const res = await fetch(`${url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(c.request)
  })
  const body = await res.json() as any
  const e = c.expected
  if (e.error === 'outside_vertical_range') {
    t.equal(res.status, 409, '409 outside_vertical_range')
    t.equal(body.code, 'outside_vertical_range')
    for (const [k, v] of Object.entries(e.coverage)) closeTo(t, body.coverage[k], v as number, k, 'coverage')
    return
  }
  t.equal(res.status, 200, JSON.stringify(body).slice(0, 300))
  assertSchema(t, AtmosphereResponse, body)
  t.equal(body.provenance.model_run_at, c.run, 'model run')
  t.equal(body.provenance.surface_layer, e.surface_layer, 'surface_layer')
  // the heights each variable's nodes stood at, as the reference reads §8's precision rule
  t.same(body.provenance.surface_layer_nodes, e.surface_layer_nodes, 'surface_layer_nodes')
  if (e.surface_layer === 'gfs_height_above_ground') {
    t.equal(body.provenance.vertical_interpolation, METHOD)
    t.match(body.provenance.dataset, /pressure levels and height above ground/)
  } else {
    t.equal(body.provenance.vertical_interpolation, METHOD.slice(0, METHOD.indexOf('_with_')), 'the plain method')
  }
  t.equal(body.provenance.sampled_latitude, e.sampled_latitude)
  t.equal(body.provenance.sampled_longitude, e.sampled_longitude)
  closeTo(t, body.model_ground_elevation_m_msl, e.model_ground_elevation_m_msl, 'model_ground_elevation_m_msl',
    'ground')
  closeTo(t, body.ground_elevation_m_msl, e.ground_elevation_m_msl, 'ground_elevation_m_msl', 'ground')
  for (const [k, v] of Object.entries(e.coverage)) closeTo(t, body.coverage[k], v as number, k, 'coverage')
  t.equal(body.levels.length, e.levels.length)
  e.levels.forEach((level: Record<string, number>, n: number) => {
    for (const [k, v] of Object.entries(level)) closeTo(t, body.levels[n][k], v, k, `level ${n}`)
  })
}

/** The cases of one fixture file (its path under test/fixtures/grib). */
const casesOf = (pattern: RegExp): Case[] => cases.filter((c) => pattern.test(c.file))
const BUNDLED = /^Porbi96\+/

t.test('the bundled mirror: every case of its files', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const mine = casesOf(BUNDLED)
  t.ok(mine.length >= 15)
  for (const c of mine) await t.test(c.name, (t) => checkCase(t, svc.url, key, c))
})

t.test('files lacking near-ground fields: the nodes present, or unavailable below §8\'s minimum', async (t) => {
  for (const file of [...new Set(cases.map((c) => c.file))].filter((f) => !BUNDLED.test(f))) {
    await t.test(file, async (t) => {
      const root = await buildSampleTree(t, { only: [], extra: { [F006]: file } })
      const svc = await startTestService(t, { env: { ALOFT_SOURCE: `mirror:${root}` } })
      const { key } = await svc.newAccount()
      for (const c of cases.filter((x) => x.file === file)) await t.test(c.name, (t) => checkCase(t, svc.url, key, c))
    })
  }
})

t.test('the bucket with .idx byte ranges and the grib filter carry the near-ground fields', async (t) => {
  const up = await startSampleUpstream(t, { idx: true, only: [F006] })
  const some = casesOf(BUNDLED).filter((c) => c.run === '2020-08-04T12:00:00Z').slice(0, 4)
  const sources = [['bucket', `mirror:${up.server.bucketUrl}`], ['filter', `filter:${up.server.filterUrl}`]]
  for (const [kind, source] of sources) {
    await t.test(kind, async (t) => {
      const svc = await startTestService(t, { env: { ALOFT_SOURCE: source } })
      const { key } = await svc.newAccount()
      for (const c of some) await t.test(c.name, (t) => checkCase(t, svc.url, key, c))
    })
  }
  t.ok(up.server.requests.some((r) => r.range !== null), 'byte ranges were asked for')
  t.ok(up.server.requests.some((r) => r.url.includes('lev_10_m_above_ground=on')), 'the filter was asked for 10 m')
})
