// The routes without a key: capabilities, OpenAPI, problem pages, health, readiness, metrics.
import t from 'tap'
import { startTestService, assertSchema, expectProblem, untilReady } from '../helpers/service.js'
import { Capabilities, Health } from '../../src/contract/schemas.js'
import { PROBLEM_CODE_NAMES, PROBLEM_CODES } from '../../src/contract/codes.js'
import { ROUTES } from '../../src/contract/routes.js'
import { METHODS, PROCESSING_VERSION } from '../../src/atmosphere/methods.js'
import { validate as validateOpenApi } from '@readme/openapi-parser'

const svc = await startTestService(t, {
  env: { ALOFT_DAILY_ALLOWANCE: '77', ALOFT_RATE_PER_SECOND: '2.5', ALOFT_RATE_BURST: '9' }
})

t.test('capabilities need no key and carry the configured limits and methods', async (t) => {
  const res = await fetch(`${svc.url}/v1/atmosphere/capabilities`)
  t.equal(res.status, 200)
  t.equal(res.headers.get('access-control-allow-origin'), '*')
  const body = await res.json() as Capabilities
  assertSchema(t, Capabilities, body)
  t.match(body.limits, {
    daily_upstream_attempts: 77,
    request_rate_per_second: 2.5,
    request_burst: 9,
    altitudes_per_request: { min: 1, max: 32 }
  })
  t.same(body.methods, METHODS)
  t.equal(body.processing_version, PROCESSING_VERSION)
  t.equal(body.interface_version, '0.1.0')
  t.same(body.altitude_references, ['agl', 'msl'])
  t.same(body.quality_options, ['best_available', 'immediate'])
  t.equal(body.source.configured, true)
  t.equal(body.source.kind, 'mirror')
  t.equal(body.source.time_coverage.max_time_offset_hours, 3)
})

t.test('/openapi.json is valid OpenAPI 3.1 with the interface operation ids and the X-API-Key scheme', async (t) => {
  const res = await fetch(`${svc.url}/openapi.json`)
  t.equal(res.status, 200)
  const doc = await res.json() as any
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.version, '0.1.0')
  const result = await validateOpenApi(structuredClone(doc))
  t.ok(result.valid, 'a maintained validator accepts it', { result })
  t.equal(doc.paths['/v1/atmosphere/profile'].post.operationId, 'get_atmospheric_profile')
  t.equal(doc.paths['/v1/atmosphere/capabilities'].get.operationId, 'capabilities_v1_atmosphere_capabilities_get')
  t.equal(doc.paths['/v1/atmosphere/usage'].get.operationId, 'usage_v1_atmosphere_usage_get')
  t.same(doc.components.securitySchemes.ApiKeyAuth, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: doc.components.securitySchemes.ApiKeyAuth.description
  })
  t.same(doc.paths['/v1/atmosphere/profile'].post.security, [{ ApiKeyAuth: [] }])
  t.same(doc.paths['/v1/atmosphere/capabilities'].get.security, [])
  t.ok(doc.paths['/v1/atmosphere/profile'].post.responses['409'], 'the 409 is documented')
  t.equal(
    doc.paths['/v1/atmosphere/profile'].post.requestBody.content['application/json'].schema.$ref,
    '#/components/schemas/AtmosphereRequest'
  )
  t.ok(doc.paths['/v1/admin/accounts'], 'the admin route is documented when a token is configured')
})

t.test('/openapi.json leaves out the admin route when no admin token is set', async (t) => {
  const bare = await startTestService(t, { env: { ALOFT_ADMIN_TOKEN: '' } })
  const doc = await (await fetch(`${bare.url}/openapi.json`)).json() as any
  t.notOk(doc.paths['/v1/admin/accounts'])
})

t.test('the OpenAPI request schema is the one that validates requests', async (t) => {
  const doc = await (await fetch(`${svc.url}/openapi.json`)).json() as any
  const schema = doc.components.schemas.AtmosphereRequest
  t.equal(schema.additionalProperties, false)
  t.same(schema.properties.altitudes_m, {
    type: 'array',
    items: { type: 'number' },
    minItems: 1,
    maxItems: 32,
    uniqueItems: true,
    description: schema.properties.altitudes_m.description
  })
})

t.test('every problem code has a page at its type URI', async (t) => {
  for (const code of PROBLEM_CODE_NAMES) {
    const res = await fetch(`${svc.url}/problems/${code}`)
    t.equal(res.status, 200, code)
    t.match(res.headers.get('content-type'), /^text\/html/)
    const html = await res.text()
    t.match(html, PROBLEM_CODES[code].title.replace(/'/g, '&#39;'))
    t.match(html, String(PROBLEM_CODES[code].status))
  }
})

t.test('an unknown problem page is a 404 problem', async (t) => {
  await expectProblem(t, await fetch(`${svc.url}/problems/no_such_code`), { status: 404, code: 'not_found' })
  await expectProblem(t, await fetch(`${svc.url}/problems/__proto__`), { status: 404, code: 'not_found' })
})

t.test('/healthz says the process is up', async (t) => {
  const res = await fetch(`${svc.url}/healthz`)
  t.equal(res.status, 200)
  const body = await res.json()
  assertSchema(t, Health, body)
  t.same(body, { status: 'ok' })
})

t.test('/readyz checks the account store, the source, the cache directory and the worker pool', async (t) => {
  const res = await untilReady(svc.url)
  t.equal(res.status, 200)
  t.same(await res.json(), { status: 'ok', checks: { account_store: 'ok', source: 'ok', cache_dir: 'ok',
    worker_pool: 'ok' } })
})

t.test('/metrics counts requests by route and status in Prometheus text', async (t) => {
  await fetch(`${svc.url}/healthz`)
  await fetch(`${svc.url}/nowhere`)
  const res = await fetch(`${svc.url}/metrics`)
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/plain/)
  const text = await res.text()
  t.match(text, /aloft_http_requests_total\{route="healthz",method="GET",status="200"\} \d+/)
  t.match(text, /aloft_http_requests_total\{route="unmatched",method="GET",status="404"\} \d+/)
  t.match(
    text,
    /aloft_http_request_duration_seconds_bucket\{le="0.005",route="healthz",method="GET",status="200"\} \d+/
  )
})

t.test('every route label is an operation id, or unmatched when no operation takes the request', async (t) => {
  await fetch(`${svc.url}/nowhere`)
  await fetch(`${svc.url}/v1/keys`, { method: 'PUT' })
  await fetch(`${svc.url}/v1/atmosphere/usage`)
  const text = await (await fetch(`${svc.url}/metrics`)).text()
  const labels = new Set([...text.matchAll(/^aloft_http_requests_total\{route="([^"]+)"/gm)].map((m) => m[1]))
  const ids = new Set([...ROUTES.map((r) => r.operationId), 'unmatched'])
  for (const label of labels) t.ok(ids.has(label), label)
  t.ok(labels.has('usage_v1_atmosphere_usage_get'), 'a 401 is counted under its operation')
  t.match(text, /aloft_http_requests_total\{route="unmatched",method="PUT",status="405"\} 1/)
})

t.test('one JSON log line per request with method, path, status, duration and request id', async (t) => {
  await fetch(`${svc.url}/healthz`, { headers: { 'x-request-id': 'log-line-check' } })
  await new Promise((r) => setTimeout(r, 20))
  const lines = svc.logs.map((l) => JSON.parse(l)).filter((l) => l.request_id === 'log-line-check')
  t.equal(lines.length, 1)
  t.match(lines[0], { method: 'GET', path: '/healthz', status: 200, route: 'healthz', duration_ms: Number })
})

t.test('/metrics reports the decoded-unit cache, the worker pool and upstream attempts', async (t) => {
  const { key } = await svc.newAccount()
  const body = JSON.stringify({
    latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [1000], altitude_reference: 'agl'
  })
  for (let i = 0; i < 2; i++) {
    await fetch(`${svc.url}/v1/atmosphere/profile`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body
    })
  }
  const text = await (await fetch(`${svc.url}/metrics`)).text()
  t.match(text, /aloft_decoded_cache_requests_total\{result="miss"\} 1/)
  t.match(text, /aloft_decoded_cache_requests_total\{result="hit"\} 1/)
  t.match(text, /aloft_decoded_cache_bytes [1-9]\d*/)
  t.match(text, /aloft_worker_pool_utilization \d/)
  t.match(text, /aloft_worker_pool_queue_size 0/)
  t.match(text, /aloft_upstream_attempts_total\{origin="mirror"\} 1/)
})
