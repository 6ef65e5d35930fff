// @aloft/client (clients/typescript) against the demo on a free port, as a Node program calls it:
// the answers are the service's own, refusals are ProblemErrors that say what to change, a 429 is
// waited out, and the client covers every operation of the service's OpenAPI document with types
// generated from it.
import t from 'tap'
import { createServer, type Server } from 'node:http'
import { readFile } from 'node:fs/promises'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import openapiTS, { astToString } from 'openapi-typescript'
import {
  createClient, NOT_CALLED, OPERATIONS, ProblemError, retryAfterSeconds, UnreachableError, unitsOf,
  type SamplesRequest, type TrajectoryRequest, type TrajectoryResponse
} from '../../clients/typescript/src/index.js'
import { startDemo } from '../helpers/demo.js'
import { repoPath } from '../helpers/paths.js'

const demo = await startDemo(t)
const KEY = demo.exports.ALOFT_API_KEY
const client = createClient({ baseUrl: demo.url, apiKey: KEY, adminToken: demo.exports.ALOFT_ADMIN_TOKEN })

const PROFILE = {
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300, 1000, 3000],
  altitude_reference: 'agl' as const
}
const SAMPLES: SamplesRequest = {
  latitude: [52.23, 52.31, 50.1], longitude: [21.01, 21.2, 19.9], altitude_m: [500, 3000, 80_000],
  time: ['2020-08-04T13:00:00Z', '2020-08-04T14:30:00Z', '2020-08-04T12:00:00Z'], altitude_reference: 'agl'
}
const FLIGHT: TrajectoryRequest = {
  launch_latitude: 52.23, launch_longitude: 21.01, launch_datetime: '2020-08-04T12:00:00Z', launch_altitude: 100,
  ascent_rate: 5, burst_altitude: 20000, descent_rate: 6
}

/** The service's answer to a plain POST, as a caller without the client gets it. */
async function posted (path: string, body: unknown, accept = 'application/json'): Promise<Response> {
  return fetch(`${demo.url}${path}`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json', Accept: accept }
  })
}

/** The error a promise is rejected with (the test fails when it resolves). */
async function refusal (answer: Promise<unknown>): Promise<unknown> {
  try {
    await answer
  } catch (err) {
    return err
  }
  throw new Error('the call succeeded')
}

t.test('a profile is the service\'s own answer to the same body', async (t) => {
  const answer = await client.profile(PROFILE)
  t.same(answer, await (await posted('/v1/atmosphere/profile', PROFILE)).json())
  t.equal(answer.levels.length, 3)
})

t.test('samples come as the service\'s JSON columns', async (t) => {
  const answer = await client.samples(SAMPLES)
  t.same(answer, await (await posted('/v1/atmosphere/samples', SAMPLES)).json())
  t.same(answer.columns.status, ['ok', 'ok', 'outside_vertical_range'])
})

t.test('samples as Arrow: one row per point, the JSON answer\'s values and units', async (t) => {
  const json = await client.samples(SAMPLES)
  const table = await client.samplesArrow(SAMPLES)
  t.equal(table.numRows, 3)
  for (const name of ['status', 'temperature_k', 'wind_u_ms', 'altitude_msl_m', 'unit_before', 'time_weight']) {
    const column = (json.columns as Record<string, unknown[]>)[name]
    t.same([...table.getChild(name)!].map((v) => v ?? null), column, name)
  }
  t.same(unitsOf(table), json.units)
})

t.test('a flight is the service\'s answer: its request, stages and landing', async (t) => {
  const answer = await client.trajectory(FLIGHT)
  const direct = await (await posted('/v1/atmosphere/trajectory', FLIGHT)).json() as TrajectoryResponse
  t.same(answer.prediction, direct.prediction)
  t.same(answer.request, direct.request)
  t.same(answer.prediction.map((s) => s.stage), ['ascent', 'descent'])
})

t.test('a 400 is a ProblemError naming the field and what it must be', async (t) => {
  const err = await refusal(client.profile({ ...PROFILE, latitude: 152.23 }))
  t.ok(err instanceof ProblemError)
  const problem = err as ProblemError
  t.equal(problem.status, 400)
  t.equal(problem.code, 'invalid_request')
  t.same(problem.errors[0].loc, ['body', 'latitude'])
  t.match(problem.requestId, /^[0-9a-f-]{36}$/)
  t.equal(problem.retryAfter, null)
  t.match(problem.message, /^Invalid request \(HTTP 400, invalid_request\): The body does not match/)
  t.match(problem.message, /\n {2}- latitude \(Latitude\): Must be 90 or less\.\n/)
})

t.test('a height outside the column is a 409 whose message gives the heights served', async (t) => {
  const problem = await refusal(client.profile({ ...PROFILE, altitudes_m: [1] })) as ProblemError
  t.equal(problem.status, 409)
  t.equal(problem.code, 'outside_vertical_range')
  t.ok(problem.coverage !== null && problem.coverage.minimum_agl_m > 1)
  t.match(problem.message, /This point serves \d+–\d+ m above ground/)
})

t.test('a wrong key and no key are 401s that say to give a valid key', async (t) => {
  const wrong = await refusal(createClient({ baseUrl: demo.url, apiKey: 'aloft_wrong' }).usage()) as ProblemError
  t.equal(wrong.status, 401)
  t.equal(wrong.code, 'invalid_api_key')
  t.match(wrong.message, /Give a valid API key/)
  const none = await refusal(createClient({ baseUrl: demo.url }).profile(PROFILE)) as ProblemError
  t.equal(none.code, 'missing_api_key')
})

t.test('the account, its usage and the capabilities', async (t) => {
  const account = await client.account()
  t.match(account.id, /^acct_/)
  t.equal((await client.usage()).limit, account.limit)
  t.ok((await client.capabilities()).limits)
  t.equal((await client.health()).status, 'ok')
  t.equal((await client.ready()).status, 'ok')
})

t.test('keys: made, listed, revoked, and a revoked key refused', async (t) => {
  const made = await client.createKey({ name: 'client test' })
  t.ok((await client.listKeys({ limit: 100 })).keys.some((k) => k.id === made.id))
  t.not((await client.revokeKey(made.id)).revoked_at, null)
  const err = await refusal(createClient({ baseUrl: demo.url, apiKey: made.key }).usage()) as ProblemError
  t.equal(err.code, 'revoked_api_key')
})

t.test('an operator makes an account whose key works; without the token it is a 401', async (t) => {
  const created = await client.createAccount({ name: 'client operator test' })
  t.equal((await createClient({ baseUrl: demo.url, apiKey: created.key.key }).account()).id, created.account.id)
  const err = await refusal(createClient({ baseUrl: demo.url }).createAccount({ name: 'x' })) as ProblemError
  t.equal(err.status, 401)
})

t.test('at 1 request a second, five calls in a row all answer by waiting Retry-After', async (t) => {
  const slow = await startDemo(t, { ALOFT_RATE_PER_SECOND: '1', ALOFT_RATE_BURST: '1' })
  const key = slow.exports.ALOFT_API_KEY
  const patient = createClient({ baseUrl: slow.url, apiKey: key })
  const started = performance.now()
  for (let i = 0; i < 5; i++) t.equal((await patient.usage()).period, 'utc_day', `call ${i + 1}`)
  t.ok(performance.now() - started >= 3000, 'four of them waited about a second each')
  const hasty = createClient({ baseUrl: slow.url, apiKey: key, maxRetries: 0 })
  await hasty.usage().catch(() => undefined) // the bucket is empty after this one, whichever way it went
  const err = await refusal(hasty.usage()) as ProblemError
  t.equal(err.status, 429)
  t.equal(err.code, 'rate_limited')
  t.ok(err.retryAfter !== null && err.retryAfter >= 1, 'retryAfter is the service\'s Retry-After')
  t.match(err.message, /Ask again in \d+ s \(Retry-After\)/)
})

/** A stand-in for a proxy answering every request with `status`, these headers and this body. */
async function proxy (status: number, retryAfter: string, body?: string,
  headers: Record<string, string> = {}): Promise<{ url: string, hits: () => number }> {
  let hits = 0
  const server: Server = createServer((_req, res) => {
    hits++
    res.writeHead(status, { 'Content-Type': 'application/problem+json', 'Retry-After': retryAfter, ...headers })
    res.end(body ?? JSON.stringify({ type: '/problems/source_busy', title: 'Busy', status, code: 'source_busy',
      request_id: 'r1' }))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.close() })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits }
}

t.test('a 503 is asked again after Retry-After, max_retries times, then raised', async (t) => {
  const busy = await proxy(503, '0')
  const err = await refusal(createClient({ baseUrl: busy.url, apiKey: 'k', maxRetries: 2 }).capabilities())
  t.equal((err as ProblemError).status, 503)
  t.equal(busy.hits(), 3, 'the first ask and two more')
})

t.test('a Retry-After longer than maxRetryWaitSeconds is raised at once, not slept through', async (t) => {
  const busy = await proxy(429, '3600')
  const err = await refusal(createClient({ baseUrl: busy.url, apiKey: 'k' }).capabilities()) as ProblemError
  t.equal(err.retryAfter, 3600)
  t.equal(busy.hits(), 1)
})

t.test('no other status is retried', async (t) => {
  const broken = await proxy(500, '0')
  await refusal(createClient({ baseUrl: broken.url }).capabilities())
  t.equal(broken.hits(), 1)
})

t.test('Retry-After as seconds or an HTTP date, and nothing else', async (t) => {
  t.equal(retryAfterSeconds('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('2015-10-21T07:28:00Z')), 5)
  t.equal(retryAfterSeconds(' 12 '), 12)
  for (const junk of ['soon', '1.5', '-1', '', null]) t.equal(retryAfterSeconds(junk), null, String(junk))
})

t.test('a service that does not answer is an UnreachableError, within the timeout', async (t) => {
  const silent = createServer(() => { /* never answers */ })
  silent.listen(0, '127.0.0.1')
  await once(silent, 'listening')
  t.teardown(() => { silent.closeAllConnections(); silent.close() })
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
  const started = performance.now()
  const err = await refusal(createClient({ baseUrl: url, timeoutMs: 300 }).health())
  const ms = performance.now() - started
  t.ok(err instanceof UnreachableError)
  // by its own 300 ms: not before, and not by fetch's own 300 s headers timeout (a tenth of it tells them apart)
  t.ok(ms >= 290 && ms < 30_000, `after ${ms.toFixed(0)} ms`)
  t.match((err as Error).message, /did not answer/)
})

t.test('a caller\'s abort passes through as its own reason, not as a failure of the service', async (t) => {
  const controller = new AbortController()
  const reason = new Error('the caller gave up')
  controller.abort(reason)
  t.equal(await refusal(client.profile(PROFILE, { signal: controller.signal })), reason)
})

t.test('an abort during the wait before a retry ends the call at once', async (t) => {
  const busy = await proxy(503, '30')
  const controller = new AbortController()
  const reason = new Error('no more waiting')
  setTimeout(() => controller.abort(reason), 200)
  const started = performance.now()
  const err = await refusal(createClient({ baseUrl: busy.url }).capabilities({ signal: controller.signal }))
  t.equal(err, reason)
  t.ok(performance.now() - started < 30_000 / 2, 'not the 30 s Retry-After')
  t.equal(busy.hits(), 1)
})

t.test('a redirect is raised, not followed (it would carry the key elsewhere)', async (t) => {
  const moved = await proxy(301, '0', '', { Location: 'http://127.0.0.1:9/elsewhere' })
  const err = await refusal(createClient({ baseUrl: moved.url, apiKey: 'k' }).account()) as ProblemError
  t.equal(err.status, 301)
  t.equal(err.code, null)
  t.match(err.message, /follows no redirect/)
})

t.test('an answer that is not a problem document shows its start; a 2xx that is not JSON is refused', async (t) => {
  const page = await proxy(502, '', '<html>Bad gateway from the proxy</html>', { 'Content-Type': 'text/html' })
  const err = await refusal(createClient({ baseUrl: page.url }).capabilities()) as ProblemError
  t.equal(err.title, 'HTTP 502 Bad Gateway')
  t.equal(err.detail, '<html>Bad gateway from the proxy</html>')
  const login = await proxy(200, '', '<html>log in</html>', { 'Content-Type': 'text/html' })
  const notJson = await refusal(createClient({ baseUrl: login.url }).capabilities()) as ProblemError
  t.equal(notJson.status, 200)
  t.match(notJson.message, /^HTTP 200 OK \(not JSON\) \(HTTP 200\): <html>log in<\/html>/)
})

t.test('a NaN or Infinity in a body is refused before sending, naming where it is', async (t) => {
  const err = await refusal(client.samples({ ...SAMPLES, altitude_m: [500, NaN, 1] }))
  t.ok(err instanceof TypeError)
  t.match((err as Error).message, /^body\.altitude_m\[1\]: NaN is not a number JSON can carry/)
})

t.test('drift: every operation the service documents is a client method or says why it is not', async (t) => {
  const document = await client.openapi() as { paths: Record<string, Record<string, { operationId: string }>> }
  const served = Object.values(document.paths).flatMap((p) => Object.values(p).map((o) => o.operationId)).sort()
  const covered = [...new Set([...Object.values(OPERATIONS), ...Object.keys(NOT_CALLED)])].sort()
  t.same(covered, served)
  const methods = client as unknown as Record<string, unknown>
  for (const method of Object.keys(OPERATIONS)) t.type(methods[method], 'function', method)
})

t.test('drift: the client\'s types are what openapi-typescript makes of the document served', async (t) => {
  const document = await client.openapi()
  const generated = astToString(await openapiTS(document as never, { defaultNonNullable: false }))
  const types = await readFile(repoPath('clients/typescript/src/openapi.ts'), 'utf8')
  t.equal(types.slice(types.indexOf('\n') + 1), generated)
})
