// Bulk samples with the surface layer (docs/DESIGN.md §8) held against
// scripts/samples-surface-reference.py (ecCodes + numpy, written apart from the engine) on the
// bundled data: statuses, unit indices, time weights and units identical, every number within
// 1e-9 relative (test/fixtures/samples/golden-surface.json). Then `nearest` against the profile
// route with the same flag, number for number, and the Arrow form against the JSON one.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { Table, Timestamp, TimeUnit, makeVector, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow'
import { startTestService } from '../helpers/service.js'
import { validatorFor } from '../../src/contract/validate.js'
import { SamplesResponse } from '../../src/contract/samples.js'
import { repoUrl } from '../helpers/paths.js'
import { differs, sameColumns } from '../helpers/golden.js'

interface Case {
  name: string
  request: Record<string, any>
  expected: { count: number, units: Array<Record<string, unknown>>, columns: Record<string, unknown[]> }
}
const cases = JSON.parse(readFileSync(repoUrl('test/fixtures/samples/golden-surface.json'), 'utf8')) as Case[]
const isResponse = validatorFor(SamplesResponse)
const METHOD_SUFFIX = '_with_surface_layer_power_law_wind_below_10m'

const service = await startTestService(t)
const { key } = await service.newAccount()
const post = async (path: string, body: unknown): Promise<{ status: number, body: any }> => {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  return { status: res.status, body: await res.json() }
}

t.test('samples with the surface layer equal the reference', async (t) => {
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const { status, body } = await post('/v1/atmosphere/samples', c.request)
      t.equal(status, 200, JSON.stringify(body).slice(0, 300))
      t.ok(isResponse(body), 'a SamplesResponse')
      t.equal(body.count, c.expected.count)
      t.same(body.units.map(({ model_run_at: r, forecast_hour: h, valid_time: v, surface_layer: s,
        surface_layer_nodes: n }: any) => ({ r, h, v, s, n })), c.expected.units.map(({ model_run_at: r,
        forecast_hour: h, valid_time: v, surface_layer: s, surface_layer_nodes: n }) => ({ r, h, v, s, n })),
      'units, each with the layer and its nodes')
      t.ok(body.provenance.vertical_interpolation.endsWith(METHOD_SUFFIX), 'the method names the layer')
      sameColumns(t, body.columns, c.expected.columns)
    })
  }
})

t.test('nearest samples with the layer are the profile route with the layer, number for number', async (t) => {
  const altitudes = [0, 1, 2, 5, 9.9, 10, 15, 30, 50, 80, 100, 101, 150, 1000]
  for (const [latitude, longitude] of [[52, 19], [49.25, 20], [54.75, 18.75]]) {
    const time = '2020-08-04T18:00:00Z'
    const profile = await post('/v1/atmosphere/profile', { latitude, longitude, time, altitudes_m: altitudes,
      altitude_reference: 'agl', surface_layer: true })
    t.equal(profile.status, 200)
    const samples = await post('/v1/atmosphere/samples', { latitude: altitudes.map(() => latitude),
      longitude: altitudes.map(() => longitude), altitude_m: altitudes, time, altitude_reference: 'agl',
      interpolation: 'nearest', surface_layer: true })
    t.equal(samples.status, 200)
    const wrong: string[] = []
    profile.body.levels.forEach((level: Record<string, number>, k: number) => {
      for (const [field, value] of Object.entries(level)) {
        const column = samples.body.columns[field]
        if (column !== undefined && column[k] !== value) wrong.push(`${field}[${k}] ${String(column[k])} ≠ ${value}`)
      }
    })
    t.same(wrong, [], `${latitude}N ${longitude}E: every field at every height`)
    t.equal(samples.body.units[0].surface_layer, profile.body.provenance.surface_layer)
  }
})

t.test('the Arrow form takes surface_layer in its query and answers as the JSON form', async (t) => {
  const c = cases.find((x) => !Array.isArray(x.request.ground_elevation_m_msl) && typeof x.request.time !== 'string' &&
    x.request.interpolation !== 'nearest') ?? cases[0]
  const { request } = c
  const n = request.latitude.length
  const times = typeof request.time === 'string' ? Array(n).fill(request.time) : request.time
  const table = new Table({
    latitude: makeVector(Float64Array.from(request.latitude)),
    longitude: makeVector(Float64Array.from(request.longitude)),
    altitude_m: makeVector(Float64Array.from(request.altitude_m)),
    time: vectorFromArray(times.map((x: string) => new Date(x)), new Timestamp(TimeUnit.MILLISECOND, 'UTC'))
  })
  const query = new URLSearchParams({ altitude_reference: request.altitude_reference, surface_layer: 'true',
    ...(request.out_of_column === 'nearest_level' ? { out_of_column: 'nearest_level' } : {}) })
  const res = await fetch(`${service.url}/v1/atmosphere/samples?${query.toString()}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/vnd.apache.arrow.stream',
      accept: 'application/vnd.apache.arrow.stream' },
    body: tableToIPC(table, 'stream')
  })
  t.equal(res.status, 200)
  const answer = tableFromIPC(new Uint8Array(await res.arrayBuffer()))
  const wind = answer.getChild('wind_u_ms')!.toArray() as Float64Array
  const expected = c.expected.columns.wind_u_ms as Array<number | null>
  const wrong = expected.filter((e, p) => e === null ? !Number.isNaN(wind[p]) : differs('wind_u_ms', wind[p], e))
  t.same(wrong.length, 0, 'every wind_u_ms as the reference')
  const bad = await fetch(`${service.url}/v1/atmosphere/samples?altitude_reference=agl&surface_layer=yes`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/vnd.apache.arrow.stream' },
    body: tableToIPC(table, 'stream')
  })
  t.equal(bad.status, 400, 'surface_layer=yes is refused')
})
