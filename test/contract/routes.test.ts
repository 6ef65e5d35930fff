// The route table is the one declaration of every route: the router, OpenAPI, CORS, body limits
// and capabilities are all built from it.
import t from 'tap'
import { ROUTES, routeById, servedRoutes } from '../../src/contract/routes.js'
import { buildOpenApi } from '../../src/contract/openapi.js'
import { startTestService } from '../helpers/service.js'

t.test('each operation id and each method + path appears once', async (t) => {
  t.equal(new Set(ROUTES.map((r) => r.operationId)).size, ROUTES.length)
  t.equal(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size, ROUTES.length)
})

t.test('key, account and operator routes allow no CORS; of the keyed routes, only those a page calls do', async (t) => {
  const unsafe = ROUTES.filter((r) => r.tag === 'keys' || r.tag === 'admin' || r.auth === 'admin')
  for (const r of unsafe) t.notOk(r.cors, r.operationId)
  const keyedWithCors = ROUTES.filter((r) => r.auth === 'api_key' && r.cors).map((r) => r.operationId)
  t.same(keyedWithCors, ['predict_trajectory', 'predict_trajectory_get', 'tawhiri_predict', 'tawhiri_predict_sondehub',
    'tawhiri_dataset_check', 'tawhiri_ruaumoko'], 'the trajectory routes and the Tawhiri paths (docs/DESIGN.md §9)')
})

t.test('a rate cost is only declared where a key is checked', async (t) => {
  for (const r of ROUTES) if (r.admissionCost > 0) t.equal(r.auth, 'api_key', r.operationId)
})

t.test('the operator route exists only with an operator token', async (t) => {
  t.notOk(servedRoutes(undefined).some((r) => r.auth === 'admin'))
  t.ok(servedRoutes('an-operator-token-0123').some((r) => r.operationId === 'create_account'))
})

t.test('OpenAPI lists exactly the documented routes, with their methods', async (t) => {
  const doc = buildOpenApi(ROUTES) as { paths: Record<string, Record<string, { operationId: string }>> }
  const listed = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId)).sort()
  t.same(listed, ROUTES.filter((r) => r.openapi).map((r) => r.operationId).sort())
})

t.test('the served app follows the table: CORS, body limits and capabilities', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  for (const r of ROUTES.filter((r) => r.method === 'GET' && r.auth === 'none' && !r.path.includes(':'))) {
    const res = await fetch(`${svc.url}${r.path}`)
    await res.arrayBuffer()
    t.equal(res.headers.get('access-control-allow-origin'), r.cors ? '*' : null, `${r.operationId} CORS`)
  }
  const profile = routeById('get_atmospheric_profile')
  const limit = profile.body!.limitBytes
  const caps = await (await fetch(`${svc.url}/v1/atmosphere/capabilities`)).json() as {
    limits: { max_body_bytes: number }
  }
  t.equal(caps.limits.max_body_bytes, limit, 'capabilities publish the profile route\'s body limit')
  const atLimit = (size: number): Promise<Response> => fetch(`${svc.url}${profile.path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{}' + ' '.repeat(size - 2)
  })
  const under = await atLimit(limit)
  t.equal(under.status, 400, 'a body of exactly the limit is read (and found wanting)')
  await under.arrayBuffer()
  const over = await atLimit(limit + 1)
  t.equal(over.status, 413, 'one byte more is refused')
  await over.arrayBuffer()
})

t.test('OpenAPI documents the 405 of every path with the Allow header the service sends', async (t) => {
  const svc = await startTestService(t)
  const doc = await (await fetch(`${svc.url}/openapi.json`)).json() as {
    paths: Record<string, Record<string, { responses: Record<string, any> }>>
  }
  for (const [path, ops] of Object.entries(doc.paths)) {
    const res = await fetch(`${svc.url}${path.replace(/\{[^}]+\}/g, 'x')}`, { method: 'PATCH' })
    await res.arrayBuffer()
    t.equal(res.status, 405, `PATCH ${path}`)
    for (const [method, op] of Object.entries(ops)) {
      const documented = op.responses['405']
      t.same(documented?.headers?.Allow?.schema?.enum, [res.headers.get('allow')], `${method} ${path}: Allow`)
      t.ok(documented?.content?.['application/problem+json'], `${method} ${path}: a problem document`)
    }
  }
})

t.test('OpenAPI documents /readyz\'s 503 with the readiness body, not only a problem', async (t) => {
  const doc = buildOpenApi(ROUTES) as { paths: Record<string, Record<string, { responses: Record<string, any> }>> }
  const unready = doc.paths['/readyz'].get.responses['503']
  t.same(unready.content['application/json'].schema, { $ref: '#/components/schemas/Health' })
  t.ok(unready.content['application/problem+json'], 'at capacity it is a problem document')
  t.ok(unready.headers['Retry-After'])
})
