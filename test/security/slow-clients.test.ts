// Clients that hold what the service has (the security probe's findings 5 and 8): answers nobody
// reads, slow uploads from one account, many idle sockets from one address, a flooded /metrics.
// Each is bounded by a limit of its own, and the memory comes back.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { startServerProcess } from '../helpers/server-process.js'
import { ADMIN_TOKEN, startTestService } from '../helpers/service.js'

const POINTS = 50_000
const samplesBody = JSON.stringify({
  latitude: Array.from({ length: POINTS }, (_, k) => 50 + (k % 300) * 0.01),
  longitude: Array.from({ length: POINTS }, (_, k) => 15 + (k % 500) * 0.01),
  altitude_m: Array.from({ length: POINTS }, (_, k) => 500 + (k % 90) * 100),
  time: '2020-08-04T15:00:00Z',
  altitude_reference: 'agl'
})

/** A raw connection to `url` that writes `text` and then reads nothing (its socket paused). */
async function silentClient (url: string, text: string): Promise<Socket> {
  const { hostname, port } = new URL(url)
  return await new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(text)
      socket.pause()
      resolve(socket)
    })
    socket.on('error', () => {})
    socket.once('error', reject)
  })
}

const samplesRequest = (key: string, body: string): string => 'POST /v1/atmosphere/samples HTTP/1.1\r\n' +
  `Host: aloft\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}` +
  '\r\n\r\n' + body

async function cutOff (url: string, reason: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Number(new RegExp(`aloft_http_cut_off_total\\{reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? 0)
}

t.test('finding 5: answers nobody reads are cut off after the write timeout and their memory comes back', async (t) => {
  const server = await startServerProcess(t, { env: { ALOFT_WRITE_TIMEOUT_MS: '1500', ALOFT_RATE_BURST: '1000',
    ALOFT_RATE_PER_SECOND: '1000' } })
  const { key } = await server.newAccount()
  // warm: the data decoded, an answer read in full
  const warm = await fetch(`${server.url}/v1/atmosphere/samples`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: samplesBody
  })
  t.equal(warm.status, 200)
  await warm.arrayBuffer()
  const before = await server.rss()
  const clients = await Promise.all(Array.from({ length: 12 }, async () =>
    await silentClient(server.url, samplesRequest(key, samplesBody))))
  let peak = 0
  const deadline = Date.now() + 20_000
  while (await cutOff(server.url, 'write_stalled') < 12 && Date.now() < deadline) {
    peak = Math.max(peak, await server.rss())
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(await cutOff(server.url, 'write_stalled'), 12, 'every silent answer was cut off')
  t.ok(server.output().includes('read none of it'), 'and logged')
  // given back: a collection follows the dropped buffers within seconds (two arenas stay kept for
  // the next large requests, and the heap the bodies were parsed in shrinks later)
  const bound = (): number => before + 0.6 * (peak - before)
  let after = Infinity
  for (let k = 0; k < 20 && after > bound(); k++) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    after = await server.rss()
  }
  t.ok(peak - before > 150 * 1048576, 'the silent answers held memory')
  t.ok(after <= bound(), `RSS ${(before / 1048576).toFixed(0)} MB → peak ${(peak / 1048576).toFixed(0)} MB → ` +
    `${(after / 1048576).toFixed(0)} MB: most of it given back`)
  for (const c of clients) c.destroy()
  t.ok(server.alive())
})

t.test('finding 5: large samples requests share a memory budget; beyond it a 503 with Retry-After', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_SAMPLES_MEMORY_MB: '32', ALOFT_WRITE_TIMEOUT_MS: '1500',
    ALOFT_RATE_BURST: '1000', ALOFT_RATE_PER_SECOND: '1000', ALOFT_WORKERS: '2' } })
  const { key } = await svc.newAccount()
  const holder = await silentClient(svc.url, samplesRequest(key, samplesBody))
  t.teardown(() => { holder.destroy() })
  // the silent request holds its ~26 MB until its answer is cut off
  for (let k = 0; k < 40 && (svc.samples?.memoryInUse().used ?? 0) === 0; k++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.ok((svc.samples?.memoryInUse().used ?? 0) > 0, 'the silent request holds memory')
  const res = await fetch(`${svc.url}/v1/atmosphere/samples`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: samplesBody
  })
  t.equal(res.status, 503)
  t.equal(res.headers.get('retry-after'), '1')
  t.match((await res.json() as { detail: string }).detail, /memory for large samples requests/)
  for (let k = 0; k < 60 && (svc.samples?.memoryInUse().used ?? 0) > 0; k++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(svc.samples?.memoryInUse().used, 0, 'given back once the silent answer is cut off')
  const again = await fetch(`${svc.url}/v1/atmosphere/samples`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: samplesBody
  })
  t.equal(again.status, 200)
  await again.arrayBuffer()
})

t.test('finding 8: slow uploads from one account hold only that account\'s share of the instance', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT: '3', ALOFT_RATE_BURST: '100' } })
  const slow = await svc.newAccount('slow')
  const other = await svc.newAccount('other')
  const uploads = await Promise.all(Array.from({ length: 3 }, async () => await silentClient(svc.url,
    'POST /v1/atmosphere/samples HTTP/1.1\r\nHost: aloft\r\n' + `X-API-Key: ${slow.key}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 33000000\r\n\r\n{"lat')))
  t.teardown(() => { for (const u of uploads) u.destroy() })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const refused = await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': slow.key } })
  t.equal(refused.status, 429)
  t.equal(refused.headers.get('retry-after'), '1')
  t.match((await refused.json() as { detail: string }).detail, /3 requests under way/)
  const served = await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': other.key } })
  t.equal(served.status, 200, 'another account is served')
  await served.arrayBuffer()
})

t.test('finding 8: one address may hold only so many connections', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_MAX_CONNECTIONS_PER_ADDRESS: '4' } })
  const { hostname, port } = new URL(svc.url)
  const idle = await Promise.all(Array.from({ length: 4 }, async () => await new Promise<Socket>((resolve) => {
    const s = connect({ host: hostname, port: Number(port) }, () => resolve(s))
  })))
  const answer = await new Promise<string>((resolve) => {
    const s = connect({ host: hostname, port: Number(port) })
    let data = ''
    s.on('data', (d) => { data += String(d) })
    s.on('error', () => {})
    s.on('close', () => resolve(data))
  })
  t.match(answer, /^HTTP\/1\.1 503 /)
  t.match(answer, /\r\nRetry-After: 1\r\n/)
  t.match(answer, /"code":"service_unavailable"/)
  idle[0].destroy()
  await new Promise((resolve) => setTimeout(resolve, 100))
  const health = await fetch(`${svc.url}/healthz`, { headers: { connection: 'close' } })
  t.equal(health.status, 200, 'a slot freed is taken again')
  await health.arrayBuffer()
  for (const s of idle) s.destroy()
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(await cutOff(svc.url, 'connections_per_address'), 1, 'the refusal is counted')
})

async function metricsStatus (url: string, token?: string): Promise<number> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
  const res = await fetch(`${url}/metrics`, { headers })
  await res.arrayBuffer()
  return res.status
}

t.test('finding 8: /metrics behind a token, or on a port of its own', async (t) => {
  const token = 'metrics-token-0123456789'
  const guarded = await startTestService(t, { env: { ALOFT_METRICS_TOKEN: token } })
  t.equal(await metricsStatus(guarded.url), 401)
  t.equal(await metricsStatus(guarded.url, ADMIN_TOKEN), 403)
  t.equal(await metricsStatus(guarded.url, token), 200)
  const apart = await startTestService(t, { env: { ALOFT_METRICS_PORT: '0' } })
  t.ok(apart.metricsUrl !== undefined && apart.metricsUrl !== apart.url)
  t.equal(await metricsStatus(apart.url), 404, 'no longer on the service\'s port')
  t.equal(await metricsStatus(apart.metricsUrl as string), 200)
  const other = await fetch(`${apart.metricsUrl as string}/v1/account`)
  t.equal(other.status, 404, 'the metrics port serves nothing else')
  await other.arrayBuffer()
})
