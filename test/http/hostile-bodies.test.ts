// Bodies built to hurt: deep nesting, huge inputs echoed back, thousands of failures. Every POST
// route answers a bounded 400 problem and the process keeps serving.
import t from 'tap'
import { ADMIN_TOKEN, startTestService, expectProblem } from '../helpers/service.js'
import { MAX_JSON_DEPTH } from '../../src/http/body/parse.js'
import { MAX_PROBLEM_ERRORS } from '../../src/contract/limits.js'
import { ROUTES } from '../../src/contract/routes.js'

const svc = await startTestService(t)
const { key } = await svc.newAccount()

const POST_ROUTES = ROUTES.filter((r) => r.method === 'POST' && r.body !== undefined)

async function post (path: string, body: string, auth: 'key' | 'admin' = 'key'): Promise<Response> {
  const credentials: Record<string, string> = auth === 'admin'
    ? { authorization: `Bearer ${ADMIN_TOKEN}` }
    : { 'x-api-key': key }
  return await fetch(`${svc.url}${path}`,
    { method: 'POST', headers: { 'content-type': 'application/json', ...credentials }, body })
}

const nested = (depth: number, open = '[', close = ']'): string => open.repeat(depth) + close.repeat(depth)

t.test('every POST route refuses JSON nested past the limit with a bounded 400', async (t) => {
  t.ok(POST_ROUTES.length >= 3)
  for (const route of POST_ROUTES) {
    for (const body of [nested(5000), nested(10_000), `{"a":${nested(MAX_JSON_DEPTH)}}`,
      nested(MAX_JSON_DEPTH + 1, '{"x":', '}')]) {
      const res = await post(route.path, body, route.auth === 'admin' ? 'admin' : 'key')
      const text = await res.text()
      t.ok(text.length < 4096, `${route.operationId}: the problem is small (${text.length} bytes)`)
      t.equal(res.status, 400, route.operationId)
      const problem = JSON.parse(text)
      t.equal(problem.code, 'invalid_request')
      t.same(problem.errors[0].loc, ['body'])
      t.equal(problem.errors[0].type, 'too_deep')
    }
  }
})

t.test('nesting up to the limit is read as usual', async (t) => {
  const atLimit = `{"name":"k","x":${nested(MAX_JSON_DEPTH - 1)}}`
  const res = await post('/v1/keys', atLimit)
  const problem = await expectProblem(t, res, { status: 400, code: 'invalid_request' })
  t.equal(problem.errors[0].type, 'extra_forbidden', 'parsed and validated: the unknown field is named')
  t.same(problem.errors[0].loc, ['body', 'x'])
})

t.test('brackets inside strings do not count as nesting', async (t) => {
  const res = await post('/v1/keys', JSON.stringify({ name: '['.repeat(40) + '"\\' + '{'.repeat(10) }))
  t.equal(res.status, 201)
  await res.arrayBuffer()
})

t.test('a huge wrong value is not echoed in full', async (t) => {
  const big = { latitude: 'x'.repeat(60_000), longitude: 21, time: '2020-08-04T18:00:00Z', altitudes_m: [1],
    altitude_reference: 'agl' }
  const res = await post('/v1/atmosphere/profile', JSON.stringify(big))
  const text = await res.text()
  t.equal(res.status, 400)
  t.ok(text.length < 4096, `small problem (${text.length} bytes)`)
  const problem = JSON.parse(text)
  const item = problem.errors.find((e: { loc: unknown[] }) => e.loc[1] === 'latitude')
  t.ok(typeof item.input === 'string' && item.input.length <= 260, 'a long string is cut short')
  const nestedInput = await post('/v1/atmosphere/profile',
    JSON.stringify({ ...big, latitude: Array.from({ length: 5000 }, (_, i) => [i]) }))
  const nestedText = await nestedInput.text()
  t.ok(nestedText.length < 4096, `a large array input is summarised (${nestedText.length} bytes)`)
  const nestedItem = JSON.parse(nestedText).errors.find((e: { loc: unknown[] }) => e.loc[1] === 'latitude')
  t.equal(nestedItem.input, undefined, 'the array is not echoed')
  t.match(nestedItem.ctx, { input_omitted: 'array of 5000 items' })
})

t.test('an unknown property with a huge name is named in short', async (t) => {
  const res = await post('/v1/keys', JSON.stringify({ name: 'k', ['y'.repeat(50_000)]: 1 }))
  const text = await res.text()
  t.ok(text.length < 4096, `small problem (${text.length} bytes)`)
  const problem = JSON.parse(text)
  t.ok(String(problem.errors[0].loc[1]).length <= 130)
})

t.test('thousands of failures list the first few and say how many there were', async (t) => {
  const bad = Array.from({ length: 3000 }, (_, i) => ({ ['k' + String(i)]: 1 }))
  const res = await post('/v1/keys', JSON.stringify(Object.assign({ name: 'k' }, ...bad)))
  const problem = await expectProblem(t, res, { status: 400, code: 'invalid_request' })
  t.equal(problem.errors.length, MAX_PROBLEM_ERRORS)
  t.match(problem.detail, /3000 error\(s\)/)
})

t.test('after all that the process still serves', async (t) => {
  const res = await fetch(`${svc.url}/healthz`)
  t.equal(res.status, 200)
  await res.arrayBuffer()
})
