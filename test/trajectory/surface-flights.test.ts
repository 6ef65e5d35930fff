// Flights with the surface layer (docs/DESIGN.md §8) held against
// scripts/trajectory-surface-reference.py (ecCodes + numpy, written apart from the engine): every
// point within 1e-5° and 0.5 m at the same instants, stages and warnings as the reference
// (test/fixtures/trajectory/golden-surface.json); each lands on the model ground, its last 300 m
// through the layer.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { startTestService } from '../helpers/service.js'
import { validatorFor } from '../../src/contract/validate.js'
import { TrajectoryResponse } from '../../src/contract/trajectory.js'
import { repoUrl } from '../helpers/paths.js'
import { sameFlight, type FlightCase, type RefPoint } from '../helpers/golden.js'

const cases = JSON.parse(readFileSync(repoUrl('test/fixtures/trajectory/golden-surface.json'), 'utf8')) as FlightCase[]
const isResponse = validatorFor(TrajectoryResponse)

t.test('flights with the surface layer equal the reference, point by point', async (t) => {
  const service = await startTestService(t)
  const { key } = await service.newAccount()
  const post = async (body: unknown): Promise<TrajectoryResponse> => {
    const res = await fetch(`${service.url}/v1/atmosphere/trajectory`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
    })
    t.equal(res.status, 200)
    return await res.json() as TrajectoryResponse
  }
  for (const c of cases) {
    await t.test(c.name, async (t) => {
      const body = await post(c.request)
      t.ok(isResponse(body), 'a TrajectoryResponse')
      t.equal(body.request.surface_layer, true, 'the request echoes the layer')
      t.ok(body.provenance.vertical_interpolation?.endsWith('_with_surface_layer_power_law_wind_below_10m'))
      sameFlight(t, body, c.expected)
    })
  }
  await t.test('a flight lands on the model ground, its last 300 m through the layer', async (t) => {
    const c = cases.find((x) => x.request.burst_altitude === 2000) ?? cases[0]
    const flight = await post(c.request)
    const descent = flight.prediction[flight.prediction.length - 1].trajectory
    const landing = descent[descent.length - 1]
    const ground = await fetch(`${service.url}/v1/atmosphere/samples`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ latitude: [landing.latitude], longitude: [landing.longitude], altitude_m: [10],
        time: landing.datetime, altitude_reference: 'agl', surface_layer: true })
    }).then(async (r) => await r.json() as any)
    t.ok(Math.abs(landing.altitude - ground.columns.ground_elevation_m_msl[0]) < 0.5,
      `landed at ${landing.altitude.toFixed(2)} m on the model ground (${ground.columns.ground_elevation_m_msl[0]} m)`)
    const without = await post({ ...c.request, surface_layer: false })
    const last = without.prediction[without.prediction.length - 1].trajectory
    const near = (p: RefPoint): boolean => p.altitude < landing.altitude + 300
    t.not(JSON.stringify(descent.filter(near)), JSON.stringify(last.filter(near)),
      'the last 300 m differ from the flight without the layer')
  })
})
