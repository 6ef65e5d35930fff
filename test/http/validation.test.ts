// The profile body is checked against AtmosphereRequest: each bad input is a 400 invalid_request
// whose `errors` point at the failing field (docs/INTERFACE.md §2.1, docs/DESIGN.md §3).
import t from 'tap'
import { startTestService, expectProblem } from '../helpers/service.js'

const svc = await startTestService(t)
const { key } = await svc.newAccount()

const valid = {
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300, 1000], altitude_reference: 'agl'
}

async function post (body: unknown): Promise<Response> {
  return await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
}

const cases: Array<[string, unknown, Array<Array<string | number>>, string]> = [
  ['an unknown property', { ...valid, colour: 'blue' }, [['body', 'colour']], 'extra_forbidden'],
  ['latitude 90.5', { ...valid, latitude: 90.5 }, [['body', 'latitude']], 'less_than_equal'],
  ['latitude -90.01', { ...valid, latitude: -90.01 }, [['body', 'latitude']], 'greater_than_equal'],
  ['longitude 180.5', { ...valid, longitude: 180.5 }, [['body', 'longitude']], 'less_than_equal'],
  ['latitude as a string', { ...valid, latitude: '52' }, [['body', 'latitude']], 'number_type'],
  ['33 heights', { ...valid, altitudes_m: Array.from({ length: 33 }, (_, i) => i * 100) },
    [['body', 'altitudes_m']], 'too_long'],
  ['an empty array of heights', { ...valid, altitudes_m: [] }, [['body', 'altitudes_m']], 'too_short'],
  ['duplicate heights', { ...valid, altitudes_m: [10, 20, 30, 20] }, [['body', 'altitudes_m', 3]], 'unique_items'],
  ['a height that is not a number', { ...valid, altitudes_m: [10, 'high'] },
    [['body', 'altitudes_m', 1]], 'number_type'],
  ['a time without timezone', { ...valid, time: '2020-08-04T18:00:00' }, [['body', 'time']], 'datetime_format'],
  ['a time with a leap second', { ...valid, time: '2016-12-31T23:59:60Z' }, [['body', 'time']], 'datetime_format'],
  ['a time with an offset without minutes', { ...valid, time: '2020-08-04T18:00:00+01' },
    [['body', 'time']], 'datetime_format'],
  ['a time without seconds', { ...valid, time: '2020-08-04T18:00Z' }, [['body', 'time']], 'datetime_format'],
  ['a date only', { ...valid, time: '2020-08-04' }, [['body', 'time']], 'datetime_format'],
  ['an impossible date', { ...valid, time: '2021-02-29T00:00:00Z' }, [['body', 'time']], 'datetime_format'],
  ['altitude_reference "AGL"', { ...valid, altitude_reference: 'AGL' }, [['body', 'altitude_reference']], 'enum'],
  ['ground_elevation_m_msl 10001', { ...valid, ground_elevation_m_msl: 10001 },
    [['body', 'ground_elevation_m_msl']], 'less_than_equal'],
  ['ground_elevation_m_msl -1000.5', { ...valid, ground_elevation_m_msl: -1000.5 },
    [['body', 'ground_elevation_m_msl']], 'greater_than_equal'],
  ['quality "fast"', { ...valid, quality: 'fast' }, [['body', 'quality']], 'enum'],
  ['a missing required field', { ...valid, latitude: undefined }, [['body', 'latitude']], 'missing'],
  ['an array as the body', [valid], [['body']], 'dict_type'],
  ['null as the body', null, [['body']], 'dict_type']
]

for (const [name, body, locs, type] of cases) {
  t.test(`${name} is a 400 invalid_request`, async (t) => {
    const problem = await expectProblem(t, await post(body), { status: 400, code: 'invalid_request' })
    t.same(problem.errors.map((e: { loc: unknown }) => e.loc), locs, 'errors[].loc')
    t.equal(problem.errors[0].type, type, 'errors[].type')
    t.type(problem.errors[0].msg, 'string')
  })
}

t.test('a missing body is a 400 invalid_request at loc ["body"]', async (t) => {
  const problem = await expectProblem(t, await post(undefined), { status: 400, code: 'invalid_request' })
  t.same(problem.errors, [{ loc: ['body'], msg: 'Field required', type: 'missing' }])
})

t.test('several failures are all reported', async (t) => {
  const problem = await expectProblem(
    t,
    await post({ ...valid, latitude: 91, quality: 'fast', extra: 1 }),
    { status: 400, code: 'invalid_request' }
  )
  t.same(problem.errors.map((e: { loc: unknown[] }) => e.loc[1]).sort(), ['extra', 'latitude', 'quality'])
})

t.test('an error item carries the input and its context', async (t) => {
  const problem = await expectProblem(
    t,
    await post({ ...valid, latitude: 90.5 }),
    { status: 400, code: 'invalid_request' }
  )
  t.match(problem.errors[0], { loc: ['body', 'latitude'], type: 'less_than_equal', input: 90.5, ctx: { limit: 90 } })
})

// The edges of every range are accepted: validation passes and the request reaches the data
// path (the bundled 2020 sample: outside its box or time that is a 404, in it a 200 or 409).
const accepted: Array<[string, unknown]> = [
  ['latitude 90 and longitude -180', { ...valid, latitude: 90, longitude: -180 }],
  ['32 heights, negative AGL included', { ...valid, altitudes_m: Array.from({ length: 32 }, (_, i) => i * 100 - 50) }],
  ['a +01:00 offset and a fraction', { ...valid, time: '2020-08-04T19:00:00.125+01:00' }],
  ['ground elevation null', { ...valid, ground_elevation_m_msl: null }],
  ['ground elevation -1000 and quality immediate', { ...valid, ground_elevation_m_msl: -1000, quality: 'immediate' }],
  ['msl heights', { ...valid, altitude_reference: 'msl' }]
]
for (const [name, body] of accepted) {
  t.test(`${name} passes validation`, async (t) => {
    const res = await post(body)
    t.not(res.status, 400, `past validation (${res.status})`)
    t.ok([200, 404, 409].includes(res.status), 'answered by the data path')
  })
}
