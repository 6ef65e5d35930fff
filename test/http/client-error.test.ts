// Node's own client errors as the contract's problems: which code each becomes, and a reset left
// unanswered (nobody is there to read it); the path of the request refused, when the parser held its
// request line, and the answer in that path's shape. The answers on the wire are in
// slow-clients.test.ts and security/tawhiri-refusals.test.ts.
import t from 'tap'
import { clientErrorProblem, clientErrorResponse, refusedPath } from '../../src/http/client-error.js'

const err = (code: string, message = code): NodeJS.ErrnoException => Object.assign(new Error(message), { code })

t.test("each of Node's client errors becomes its problem", async (t) => {
  const cases: Array<[string, string, number]> = [
    ['ERR_HTTP_REQUEST_TIMEOUT', 'request_timeout', 408],
    ['HPE_HEADER_OVERFLOW', 'header_fields_too_large', 431],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 'payload_too_large', 413],
    ['HPE_INVALID_METHOD', 'malformed_request', 400],
    ['HPE_INVALID_CHUNK_SIZE', 'malformed_request', 400]
  ]
  for (const [code, problem, status] of cases) {
    const p = clientErrorProblem(err(code))
    t.equal(p?.code, problem, code)
    t.equal(p?.status, status, code)
  }
})

t.test('a reset or a broken pipe is not answered', async (t) => {
  t.equal(clientErrorProblem(err('ECONNRESET')), null)
  t.equal(clientErrorProblem(err('EPIPE')), null)
})

t.test("a malformed request's detail carries Node's reason, cut short", async (t) => {
  const p = clientErrorProblem(err('HPE_INVALID_METHOD', 'Invalid method encountered' + 'x'.repeat(500)))
  t.match(p?.options.detail, /Invalid method encountered/)
  t.ok((p?.options.detail ?? '').length < 200)
})

t.test('the response is one whole HTTP/1.1 answer that closes the connection', async (t) => {
  const text = clientErrorResponse(clientErrorProblem(err('HPE_HEADER_OVERFLOW'))!)
  const [head, body] = text.split('\r\n\r\n')
  t.match(head, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/)
  t.match(head, /\r\nConnection: close/)
  t.equal(Number(/Content-Length: (\d+)/.exec(head)?.[1]), Buffer.byteLength(body))
  const problem = JSON.parse(body) as { code: string, request_id: string }
  t.equal(problem.code, 'header_fields_too_large')
  t.match(head, new RegExp(`X-Request-Id: ${problem.request_id}`))
})

/** A header overflow at the end of these bytes, the parser holding them. */
const parsed = (bytes: string): NodeJS.ErrnoException => Object.assign(err('HPE_HEADER_OVERFLOW'),
  { rawPacket: Buffer.from(bytes, 'latin1'), bytesParsed: bytes.length })

t.test('the refused path is the request line\'s among the bytes the parser held, without key or query', async (t) => {
  const padding = `X-Padding: ${'x'.repeat(100)}`
  t.equal(refusedPath(parsed(`GET /api/datasetcheck?x=1 HTTP/1.1\r\nHost: a\r\n${padding}`)), '/api/datasetcheck')
  t.equal(refusedPath(parsed(`GET /k/aloft_KEY/tawhiri HTTP/1.1\r\n${padding}`)), '/tawhiri', 'the key taken off')
  t.equal(refusedPath(parsed(`GET /a HTTP/1.1\r\nHost: a\r\n\r\nPUT /api/v1/ HTTP/1.1\r\n${padding}`)), '/api/v1/',
    'after a request answered on the connection, the one refused')
  t.equal(refusedPath(parsed(padding)), null, 'a request line read before these bytes is not there')
  t.equal(refusedPath(parsed(`GET /${'x'.repeat(100)}`)), null, 'nor is one cut by the limit')
  t.equal(refusedPath(err('ERR_HTTP_REQUEST_TIMEOUT')), null, 'nor where the parser held nothing')
})

t.test('in a Tawhiri path\'s shape: Tawhiri\'s error with CORS, closing the connection', async (t) => {
  const text = clientErrorResponse(clientErrorProblem(err('HPE_HEADER_OVERFLOW'))!, 'id-1',
    { cors: true, dialect: 'tawhiri' })
  const [head, body] = text.split('\r\n\r\n')
  t.match(head, /^HTTP\/1\.1 431 /)
  t.match(head, /\r\nContent-Type: application\/json\r\n/)
  t.match(head, /\r\nAccess-Control-Allow-Origin: \*\r\n/)
  t.match(head, /\r\nX-Request-Id: id-1\r\n/)
  t.match(head, /\r\nConnection: close/)
  t.equal(Number(/Content-Length: (\d+)/.exec(head)?.[1]), Buffer.byteLength(body))
  t.match(JSON.parse(body), { error: { type: 'RequestException', description: /16 KiB/ }, metadata: {} })
})
