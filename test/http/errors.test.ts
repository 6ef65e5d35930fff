// Route-level and body-level errors: every one a problem document with the request id.
import t from 'tap'
import { startTestService, expectProblem } from '../helpers/service.js'
import { createStore } from '../../src/accounts/index.js'
import type { AccountStore } from '../../src/accounts/store.js'

const svc = await startTestService(t)
const { key } = await svc.newAccount()

const profileBody = {
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300], altitude_reference: 'agl'
}
const post = (path: string, body: string | undefined, headers: Record<string, string> = {}) =>
  fetch(`${svc.url}${path}`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers }, body
  })

t.test('an unknown route is a 404 not_found problem', async (t) => {
  await expectProblem(t, await fetch(`${svc.url}/v1/nothing-here`), { status: 404, code: 'not_found' })
})

t.test('a known route with the wrong method is a 405 with Allow', async (t) => {
  const res = await fetch(`${svc.url}/v1/atmosphere/profile`, { method: 'GET' })
  t.equal(res.headers.get('allow'), 'POST')
  await expectProblem(t, res, { status: 405, code: 'method_not_allowed' })
  const keys = await fetch(`${svc.url}/v1/keys`, { method: 'PUT' })
  t.equal(keys.headers.get('allow'), 'GET, POST')
  await expectProblem(t, keys, { status: 405, code: 'method_not_allowed' })
})

t.test('a well-formed incoming X-Request-Id is echoed', async (t) => {
  const res = await fetch(`${svc.url}/nowhere`, { headers: { 'x-request-id': 'client-req_42:a.b' } })
  t.equal(res.headers.get('x-request-id'), 'client-req_42:a.b')
  const body = await expectProblem(t, res, { status: 404, code: 'not_found' })
  t.equal(body.request_id, 'client-req_42:a.b')
})

t.test('a malformed incoming X-Request-Id is replaced by a generated one', async (t) => {
  for (const bad of ['has space', 'x'.repeat(129), 'semi;colon']) {
    const res = await fetch(`${svc.url}/healthz`, { headers: { 'x-request-id': bad } })
    const id = res.headers.get('x-request-id')
    t.not(id, bad)
    t.match(id, /^[A-Za-z0-9._:-]{1,128}$/)
  }
})

t.test('successful responses carry X-Request-Id too', async (t) => {
  const res = await fetch(`${svc.url}/healthz`)
  t.equal(res.status, 200)
  t.match(res.headers.get('x-request-id'), /^[A-Za-z0-9._:-]{1,128}$/)
})

t.test('a non-JSON content type is a 415', async (t) => {
  await expectProblem(
    t,
    await post('/v1/atmosphere/profile', JSON.stringify(profileBody), { 'content-type': 'text/plain' }),
    { status: 415, code: 'unsupported_media_type' }
  )
})

t.test('a JSON body in a charset other than UTF-8 is a 415', async (t) => {
  await expectProblem(
    t,
    await post(
      '/v1/atmosphere/profile',
      JSON.stringify(profileBody),
      { 'content-type': 'application/json; charset=latin1' }
    ),
    { status: 415, code: 'unsupported_media_type' }
  )
})

t.test('malformed JSON is a 400 invalid_json', async (t) => {
  await expectProblem(
    t,
    await post('/v1/atmosphere/profile', '{"latitude": 52,'),
    { status: 400, code: 'invalid_json' }
  )
})

t.test('a body that is not valid UTF-8 is a 400 invalid_json', async (t) => {
  const bytes = Buffer.concat([Buffer.from('{"latitude": 52, "x": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])
  const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: bytes
  })
  const body = await expectProblem(t, res, { status: 400, code: 'invalid_json' })
  t.match(body.detail, /UTF-8/)
})

t.test('a UTF-8 byte-order mark before the JSON is accepted', async (t) => {
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(profileBody))])
  const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: bytes
  })
  t.equal(res.status, 200)
  t.equal((await res.json() as { levels: unknown[] }).levels.length, 1)
})

t.test('a body over 64 KiB is a 413', async (t) => {
  const big = JSON.stringify({ ...profileBody, pad: 'x'.repeat(64 * 1024) })
  await expectProblem(t, await post('/v1/atmosphere/profile', big), { status: 413, code: 'payload_too_large' })
})

t.test('a body over 64 KiB sent without a length (chunked) is a 413', async (t) => {
  const chunk = new TextEncoder().encode(' '.repeat(16 * 1024))
  let sent = 0
  const stream = new ReadableStream({
    pull (controller) {
      if (sent++ < 6) controller.enqueue(chunk)
      else controller.close()
    }
  })
  const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: stream, duplex: 'half'
  } as RequestInit)
  await expectProblem(t, res, { status: 413, code: 'payload_too_large' })
  t.equal(res.headers.get('connection'), 'close', 'the unread rest of the body is not read: the connection closes')
})

t.test('a number too large for a double is a 400 invalid_request at its location', async (t) => {
  const res = await post(
    '/v1/atmosphere/profile',
    '{"latitude":52,"longitude":21,"time":"2020-08-04T18:00:00Z",' +
    '"altitudes_m":[10,1e400],"altitude_reference":"agl"}'
  )
  const body = await expectProblem(t, res, { status: 400, code: 'invalid_request' })
  t.same(body.errors.map((e: { loc: unknown }) => e.loc), [['body', 'altitudes_m', 1]])
})

t.test('precedence: a missing key wins over a bad body', async (t) => {
  const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'nonsense'
  })
  await expectProblem(t, res, { status: 401, code: 'missing_api_key' })
})

t.test('precedence: route errors win over key errors', async (t) => {
  await expectProblem(
    t,
    await fetch(`${svc.url}/v1/atmosphere/profile`, { method: 'PATCH' }),
    { status: 405, code: 'method_not_allowed' }
  )
})

t.test('an unexpected failure is a 500 internal_error problem, logged with the request id', async (t) => {
  const real = createStore({ limits: { dailyAllowance: 10, ratePerSecond: 10, rateBurst: 10 } })
  const fail = (): never => { throw new Error('boom at /secret/internal/path') }
  const broken: AccountStore = Object.assign(Object.create(real) as AccountStore, {
    authenticate: async () => fail(), admit: async () => fail(), admitNow: fail
  })
  const other = await startTestService(t, { store: broken })
  const res = await fetch(`${other.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': 'aloft_whatever' } })
  const body = await expectProblem(t, res, { status: 500, code: 'internal_error' })
  t.notMatch(JSON.stringify(body), /boom|secret|internal\/path|at /, 'no message, path or stack in the body')
  const logged = other.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'unexpected error')
  t.equal(logged?.request_id, body.request_id, 'the log line names the request id')
})

t.test('without a data path, a valid profile request is a 503 with Retry-After and capabilities say so', async (t) => {
  const bare = await startTestService(t, { dataPath: false })
  const account = await bare.newAccount()
  const res = await fetch(`${bare.url}/v1/atmosphere/profile`, {
    method: 'POST',
    headers: { 'x-api-key': account.key, 'content-type': 'application/json' },
    body: JSON.stringify(profileBody)
  })
  t.equal(res.headers.get('retry-after'), '3600')
  await expectProblem(t, res, { status: 503, code: 'service_unavailable' })
  const caps = await (await fetch(`${bare.url}/v1/atmosphere/capabilities`)).json() as {
    source: { configured: boolean, status: string }
  }
  t.equal(caps.source.configured, false)
  t.match(caps.source.status, /no data path/)
})
