// The service's bulk samples held against scripts/samples-reference.py (ecCodes + plain Python,
// written apart from the engine), on the bundled real GFS sample: statuses, unit indices and
// time weights identical, every number within 1e-9 relative (test/fixtures/samples/golden.json,
// made by scripts/samples-golden.py).
import t from 'tap'
import { readFileSync } from 'node:fs'
import { startTestService } from '../helpers/service.js'
import { validatorFor } from '../../src/contract/validate.js'
import { SamplesResponse } from '../../src/contract/samples.js'
import { repoUrl } from '../helpers/paths.js'
import { sameColumns } from '../helpers/golden.js'

interface Case {
  name: string
  request: Record<string, unknown>
  expected: { count: number, units: Array<Record<string, unknown>>, columns: Record<string, unknown[]> }
}
const cases = JSON.parse(readFileSync(repoUrl('test/fixtures/samples/golden.json'), 'utf8')) as Case[]
const isResponse = validatorFor(SamplesResponse)

t.test('samples equal the reference', async (t) => {
  const service = await startTestService(t)
  const { key } = await service.newAccount()
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const res = await fetch(`${service.url}/v1/atmosphere/samples`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(c.request)
      })
      const body = await res.json() as Case['expected']
      t.equal(res.status, 200, JSON.stringify(body).slice(0, 300))
      t.ok(isResponse(body), 'a SamplesResponse')
      t.equal(body.count, c.expected.count)
      t.same(body.units.map(({ model_run_at: r, forecast_hour: h, valid_time: v }) => ({ r, h, v })),
        c.expected.units.map(({ model_run_at: r, forecast_hour: h, valid_time: v }) => ({ r, h, v })), 'units')
      sameColumns(t, body.columns as Record<string, unknown[]>, c.expected.columns)
    })
  }
})
