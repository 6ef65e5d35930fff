// The trajectory routes write their answers with JSON.stringify (RouteSpec.success.builtInOrder,
// ~3× faster than the schema's serializer on a 19 MB ensemble): that holds only while the service
// builds every object in the schema's order. Each answer must equal its schema-ordered serialization.
import t from 'tap'
import { startTestService } from '../helpers/service.js'
import { compileSerializer } from '../../src/contract/serialize.js'
import { TrajectoryResponse } from '../../src/contract/trajectory.js'

const svc = await startTestService(t, { env: { ALOFT_RATE_BURST: '200' } })
const { key } = await svc.newAccount()
const inSchemaOrder = compileSerializer(TrajectoryResponse)

const launch = { launch_latitude: 52.2, launch_longitude: 21, launch_datetime: '2020-08-04T12:00:00Z', ascent_rate: 5 }
const cases: Array<[string, Record<string, unknown>]> = [
  ['a standard flight', { ...launch, burst_altitude: 30000, descent_rate: 5 }],
  ['a float', { ...launch, profile: 'float_profile', float_altitude: 15000, stop_datetime: '2020-08-04T16:00:00Z' }],
  ['an ensemble with every member\'s path', { ...launch, burst_altitude: 30000, descent_rate: 5,
    ensemble: { members: 5, ascent_rate_sd: 0.5, burst_altitude_sd: 1000, descent_rate_sd: 0.5, seed: 3 },
    member_trajectories: true }],
  ['a flight leaving the data', { ...launch, launch_latitude: 55.8, ascent_rate: 1, burst_altitude: 30000,
    descent_rate: 5 }]
]

for (const [name, body] of cases) {
  t.test(`${name}: served in the schema's order`, async (t) => {
    const res = await fetch(`${svc.url}/v1/atmosphere/trajectory`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
    })
    const text = await res.text()
    t.equal(res.status, 200, text.slice(0, 300))
    t.equal(text, inSchemaOrder(JSON.parse(text)))
  })
}
