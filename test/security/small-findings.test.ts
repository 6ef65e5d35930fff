// The security probe's smaller findings (9): a query that mixes two ways of giving the ensemble,
// prototype-named parameters, request targets polka never routes, Node's own refusals, and the
// problem pages' headers. Each answer carries a request id, is logged and is counted.
import t from 'tap'
import { connect } from 'node:net'
import { startTestService } from '../helpers/service.js'
import { samplesStream } from '../helpers/arrow-surgery.js'
import { ARROW_STREAM } from '../../src/contract/samples.js'

const svc = await startTestService(t)
const { key } = await svc.newAccount()

/** What the server answers to raw bytes, once it closes the connection. */
async function raw (text: string): Promise<string> {
  const { hostname, port } = new URL(svc.url)
  return await new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(text))
    let data = ''
    socket.on('data', (d) => { data += String(d) })
    socket.on('error', reject)
    socket.on('close', () => resolve(data))
  })
}

const headerOf = (answer: string, name: string): string | undefined =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(answer)?.[1]

async function metricsText (): Promise<string> {
  return await (await fetch(`${svc.url}/metrics`)).text()
}

const flight = 'profile=standard_profile&launch_latitude=52.2&launch_longitude=21&' +
  'launch_datetime=2020-08-04T12:00:00Z&ascent_rate=5&burst_altitude=30000&descent_rate=5'

t.test('an ensemble given both as one parameter and as ensemble.* is a 400, not a 500', async (t) => {
  const res = await fetch(`${svc.url}/v1/atmosphere/trajectory?${flight}&ensemble=foo&ensemble.members=5`,
    { headers: { 'x-api-key': key } })
  t.equal(res.status, 400)
  const problem = await res.json() as { errors: Array<{ loc: unknown[] }> }
  t.same(problem.errors[0].loc, ['query', 'ensemble'])
  t.notOk(svc.logs.some((l) => l.includes('"level":50')), 'no error logged')
})

t.test('prototype-named parameters are refused as unknown, never applied', async (t) => {
  for (const name of ['__proto__', 'constructor', 'ensemble.__proto__']) {
    const res = await fetch(`${svc.url}/v1/atmosphere/trajectory?${flight}&${name}=x`,
      { headers: { 'x-api-key': key } })
    t.equal(res.status, 400, name)
    const problem = await res.json() as { errors: Array<{ loc: unknown[], type: string }> }
    t.ok(problem.errors.some((e) => e.type === 'extra_forbidden' &&
      JSON.stringify(e.loc) === JSON.stringify(['query', ...name.split('.')])), `${name} is named as unknown`)
  }
  const arrow = await fetch(`${svc.url}/v1/atmosphere/samples?altitude_reference=agl&__proto__=x`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': ARROW_STREAM }, body: samplesStream(3)
  })
  t.equal(arrow.status, 400, 'an unknown Arrow query option is refused')
  const problem = await arrow.json() as { errors: Array<{ loc: unknown[] }> }
  t.same(problem.errors[0].loc, ['query', '__proto__'])
})

t.test('an absolute-form target is served as its path, with a request id, a log line and a count', async (t) => {
  const answer = await raw('GET http://evil.example/v1/account HTTP/1.1\r\nHost: evil.example\r\n' +
    `X-API-Key: ${key}\r\nConnection: close\r\n\r\n`)
  t.match(answer, /^HTTP\/1\.1 200 /)
  const id = headerOf(answer, 'X-Request-Id')
  t.ok(id !== undefined && id.length > 0, 'X-Request-Id')
  t.ok(svc.logs.some((l) => l.includes(`"request_id":"${id}"`) && l.includes('"route":"get_account"')), 'logged')
})

t.test('OPTIONS * is answered with a request id, logged and counted', async (t) => {
  const before = await metricsText()
  const answer = await raw('OPTIONS * HTTP/1.1\r\nHost: aloft\r\nConnection: close\r\n\r\n')
  t.match(answer, /^HTTP\/1\.1 404 /)
  const id = headerOf(answer, 'X-Request-Id')
  t.ok(id !== undefined)
  t.match(answer, new RegExp(`"request_id":"${id}"`))
  t.ok(svc.logs.some((l) => l.includes(`"request_id":"${id}"`)), 'logged')
  const count = (text: string): number =>
    Number(/aloft_http_requests_total\{route="unmatched",method="OPTIONS",status="404"\} (\d+)/.exec(text)?.[1] ?? 0)
  t.equal(count(await metricsText()), count(before) + 1, 'counted')
})

t.test("Node's own refusals (400, 431) are logged and counted", async (t) => {
  const count = (text: string, status: number): number => Number(new RegExp(
    `aloft_http_requests_total\\{route="unmatched",method="unknown",status="${status}"\\} (\\d+)`).exec(text)?.[1] ?? 0)
  const before = await metricsText()
  const malformed = await raw('NOT HTTP AT ALL\r\n\r\n')
  t.match(malformed, /^HTTP\/1\.1 400 /)
  const big = await raw(`GET / HTTP/1.1\r\nHost: aloft\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`)
  t.match(big, /^HTTP\/1\.1 431 /)
  const after = await metricsText()
  t.equal(count(after, 400), count(before, 400) + 1)
  t.equal(count(after, 431), count(before, 431) + 1)
  for (const answer of [malformed, big]) {
    const id = headerOf(answer, 'X-Request-Id')!
    t.ok(svc.logs.some((l) => l.includes(`"request_id":"${id}"`)), `logged (${id})`)
  }
})

t.test('problem pages forbid scripts, framing and sniffing', async (t) => {
  const res = await fetch(`${svc.url}/problems/rate_limited`)
  t.equal(res.status, 200)
  t.match(res.headers.get('content-security-policy'), /default-src 'none'/)
  t.match(res.headers.get('content-security-policy'), /frame-ancestors 'none'/)
  t.equal(res.headers.get('x-content-type-options'), 'nosniff')
  await res.arrayBuffer()
})
