// The profile route writes its answers with JSON.stringify (RouteSpec.success.builtInOrder): that
// is the schema's serializer only while the service builds every object in the schema's order.
// Each answer here, served over HTTP, must equal the schema-ordered serialization of itself.
import t from 'tap'
import { startTestService } from '../helpers/service.js'
import { compileSerializer } from '../../src/contract/serialize.js'
import { AtmosphereResponse } from '../../src/contract/schemas.js'

const svc = await startTestService(t)
const { key } = await svc.newAccount()
const inSchemaOrder = compileSerializer(AtmosphereResponse)

const base = { latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitude_reference: 'agl' }
const cases: Array<[string, Record<string, unknown>]> = [
  ['heights above the model ground', { ...base, altitudes_m: [300, 1000, 3000, 10000] }],
  ['heights above a supplied ground', { ...base, altitudes_m: [500, 2500.5], ground_elevation_m_msl: 120 }],
  ['heights above sea level', { ...base, altitudes_m: [1500, 12000], altitude_reference: 'msl' }],
  ['32 heights, between two valid times', {
    ...base, time: '2020-08-04T13:41:00Z', altitudes_m: Array.from({ length: 32 }, (_, k) => 400 + k * 613.7)
  }],
  ['the analysis step, asked for cached data only', {
    ...base, latitude: 49.3, longitude: 19.95, time: '2020-08-04T12:00:00Z', altitudes_m: [3000], quality: 'immediate'
  }]
]

for (const [name, body] of cases) {
  t.test(`${name}: served in the schema's order`, async (t) => {
    const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
    })
    const text = await res.text()
    t.equal(res.status, 200, text.slice(0, 300))
    t.equal(text, inSchemaOrder(JSON.parse(text)))
  })
}
