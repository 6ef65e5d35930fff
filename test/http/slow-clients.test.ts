// Clients that hold connections: half the headers, half a body, an idle keep-alive, too many
// connections, too many requests at once; and bytes that are not HTTP aloft can read. Each is cut
// off by a limit of our own, with a problem document where an answer can still be given.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { startTestService } from '../helpers/service.js'

/** Connects to the service; resolves with the socket once connected. */
async function open (url: string): Promise<Socket> {
  const { hostname, port } = new URL(url)
  return await new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Resolves with what the server sent and how long it took to close the connection. */
async function closed (socket: Socket): Promise<{ data: string, ms: number }> {
  const t0 = Date.now()
  let data = ''
  socket.on('data', (d) => { data += String(d) })
  socket.on('error', () => {})
  return await new Promise((resolve) => socket.once('close', () => resolve({ data, ms: Date.now() - t0 })))
}

/** The problem document of a raw HTTP answer. */
function problemIn (data: string): { code: string, status: number, request_id: string } {
  return JSON.parse(data.slice(data.indexOf('\r\n\r\n') + 4)) as { code: string, status: number, request_id: string }
}

/**
 * The bounds below tell our limits from Node's own (a request's headers 60 s, its connections checked
 * every 30 s, an idle connection 5 s): each is a fraction of the default it would otherwise be, never
 * a guess at how fast this machine runs.
 */
const NODE_CHECKS_EVERY_MS = 30_000
const NODE_KEEP_ALIVE_MS = 5000

t.test('time limits', async (t) => {
  const svc = await startTestService(t, {
    env: { ALOFT_HEADERS_TIMEOUT_MS: '400', ALOFT_REQUEST_TIMEOUT_MS: '800', ALOFT_KEEP_ALIVE_TIMEOUT_MS: '300' }
  })

  t.test('half the headers: a 408 request_timeout problem and the connection closed', async (t) => {
    const socket = await open(svc.url)
    socket.write('POST /v1/atmosphere/profile HTTP/1.1\r\nHost: aloft\r\nX-API-Key: aloft_')
    const { data, ms } = await closed(socket)
    t.match(data, /^HTTP\/1\.1 408 /)
    t.equal(problemIn(data).code, 'request_timeout')
    t.ok(ms < NODE_CHECKS_EVERY_MS / 3, `closed after ${ms} ms, by ALOFT_HEADERS_TIMEOUT_MS (400 ms)`)
  })

  t.test('half a body: a 408 request_timeout problem and the connection closed', async (t) => {
    const { key } = await svc.newAccount()
    const socket = await open(svc.url)
    socket.write(`POST /v1/keys HTTP/1.1\r\nHost: aloft\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\n\r\n{"na')
    const { data, ms } = await closed(socket)
    t.match(data, /^HTTP\/1\.1 408 /)
    t.equal(problemIn(data).code, 'request_timeout')
    t.ok(ms < NODE_CHECKS_EVERY_MS / 3, `closed after ${ms} ms, by ALOFT_REQUEST_TIMEOUT_MS (800 ms)`)
    const live = await fetch(`${svc.url}/healthz`)
    t.equal(live.status, 200, 'the service goes on')
    await live.arrayBuffer()
  })

  t.test('a refusal before the body has arrived is the only answer, and closes the connection', async (t) => {
    const socket = await open(svc.url)
    socket.write('POST /v1/keys HTTP/1.1\r\nHost: aloft\r\nContent-Type: application/json\r\nContent-Length: ' +
      '100\r\n\r\n{"na')
    const { data } = await closed(socket)
    t.match(data, /^HTTP\/1\.1 401 /)
    t.match(data, /\r\nConnection: close\r\n/)
    t.equal(data.match(/HTTP\/1\.1 /g)?.length, 1, 'one answer')
    t.equal(problemIn(data).code, 'missing_api_key')
  })

  t.test('an idle kept-alive connection is closed', async (t) => {
    const socket = await open(svc.url)
    socket.write('GET /healthz HTTP/1.1\r\nHost: aloft\r\n\r\n')
    const { data, ms } = await closed(socket)
    t.match(data, /^HTTP\/1\.1 200/)
    t.ok(ms < NODE_KEEP_ALIVE_MS * 0.8, `closed after ${ms} ms, by ALOFT_KEEP_ALIVE_TIMEOUT_MS (300 ms)`)
  })
})

t.test('what is not HTTP aloft can read', async (t) => {
  const svc = await startTestService(t)

  t.test('a malformed request line: a 400 malformed_request problem and the connection closed', async (t) => {
    const socket = await open(svc.url)
    socket.write('HELLO THERE\r\n\r\n')
    const { data } = await closed(socket)
    t.match(data, /^HTTP\/1\.1 400 /)
    t.match(data, /\r\nContent-Type: application\/problem\+json\r\n/)
    t.match(data, /\r\nConnection: close\r\n/)
    t.equal(problemIn(data).code, 'malformed_request')
  })

  t.test('a header section over 16 KiB: a 431 header_fields_too_large problem', async (t) => {
    const socket = await open(svc.url)
    socket.write(`GET /healthz HTTP/1.1\r\nHost: aloft\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`)
    const { data } = await closed(socket)
    t.match(data, /^HTTP\/1\.1 431 /)
    t.equal(problemIn(data).code, 'header_fields_too_large')
  })

  t.test('a broken chunked body: a 400 problem, and the service goes on', async (t) => {
    const socket = await open(svc.url)
    socket.write('POST /v1/keys HTTP/1.1\r\nHost: aloft\r\nContent-Type: application/json\r\n' +
      'Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n')
    const { data } = await closed(socket)
    t.match(data, /^HTTP\/1\.1 400 /)
    t.equal(problemIn(data).code, 'malformed_request')
    const live = await fetch(`${svc.url}/healthz`)
    t.equal(live.status, 200)
    await live.arrayBuffer()
  })
})

t.test('requests beyond the in-flight cap are a 503 with Retry-After; liveness still answers', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_MAX_IN_FLIGHT: '2' } })
  const { key } = await svc.newAccount()
  const held: Socket[] = []
  t.teardown(() => { for (const s of held) s.destroy() })
  for (let k = 0; k < 2; k++) {
    const socket = await open(svc.url)
    socket.on('error', () => {})
    // complete headers, incomplete body: the request is in flight, waiting for the rest
    socket.write(`POST /v1/keys HTTP/1.1\r\nHost: aloft\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\n\r\n{"na')
    held.push(socket)
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  const third = await fetch(`${svc.url}/v1/account`, { headers: { 'x-api-key': key } })
  t.equal(third.status, 503)
  t.equal(third.headers.get('retry-after'), '1')
  t.equal((await third.json() as { code: string }).code, 'service_unavailable')
  const live = await fetch(`${svc.url}/healthz`)
  t.equal(live.status, 200)
  await live.arrayBuffer()
  for (const s of held) s.destroy()
  await new Promise((resolve) => setTimeout(resolve, 100))
  const after = await fetch(`${svc.url}/v1/account`, { headers: { 'x-api-key': key } })
  t.equal(after.status, 200, 'served again once requests finish')
  await after.arrayBuffer()
  const metrics = await (await fetch(`${svc.url}/metrics`)).text()
  t.match(metrics, /aloft_http_requests_total\{route="get_account",method="GET",status="503"\} 1/,
    'the refusal is counted under its operation id')
})

t.test('connections beyond the cap are refused', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_MAX_CONNECTIONS: '2' } })
  const held = [await open(svc.url), await open(svc.url)]
  t.teardown(() => { for (const s of held) s.destroy() })
  const extra = await open(svc.url)
  extra.write('GET /healthz HTTP/1.1\r\nHost: aloft\r\n\r\n')
  const { data } = await closed(extra)
  t.equal(data, '', 'closed without an answer')
  for (const s of held) s.destroy()
  await new Promise((resolve) => setTimeout(resolve, 100))
  const after = await fetch(`${svc.url}/healthz`, { headers: { connection: 'close' } })
  t.equal(after.status, 200, 'served again once connections are free')
  await after.arrayBuffer()
})
