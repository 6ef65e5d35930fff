// Node's own client errors as the contract's problems: which code each becomes, and a reset left
// unanswered (nobody is there to read it). The answers on the wire are in slow-clients.test.ts.
import t from 'tap'
import { clientErrorProblem, clientErrorResponse } from '../../src/http/client-error.js'

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
