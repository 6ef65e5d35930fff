// A JSON body read from a request stream that ends badly settles (rejects) instead of waiting.
import t from 'tap'
import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { membersAtMost, parseJsonBytes } from '../../src/http/body/parse.js'
import { readJsonBytes } from '../../src/http/body/read.js'

function request (): Readable & IncomingMessage {
  const stream = new Readable({ read () {} })
  return Object.assign(stream, {
    headers: { 'content-type': 'application/json', 'content-length': '100' }
  }) as unknown as Readable & IncomingMessage
}

/** The parsed body, as the routes read it. */
const readJsonBody = async (req: IncomingMessage, limit: number): Promise<unknown> =>
  parseJsonBytes(await readJsonBytes(req, limit))

/** The body promise's outcome, or 'pending' if it has not settled within a second. */
async function outcome (body: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  const pending = new Promise((resolve) => { timer = setTimeout(() => resolve('pending'), 1000) })
  try {
    return await Promise.race([body.then(() => 'resolved', (err: Error) => err.message), pending])
  } finally {
    clearTimeout(timer)
  }
}

t.test('a request closed before its body ended rejects', async (t) => {
  const req = request()
  const body = readJsonBody(req, 64 * 1024)
  req.push('{"latitude":')
  req.destroy()
  t.equal(await outcome(body), 'the request closed before its body ended')
})

t.test('a request stream that fails rejects with its error', async (t) => {
  const req = request()
  const body = readJsonBody(req, 64 * 1024)
  req.push('{"latitude":')
  req.destroy(new Error('aborted'))
  t.equal(await outcome(body), 'aborted')
})

t.test('a body that arrives in several chunks is joined', async (t) => {
  const req = request()
  const body = readJsonBody(req, 64 * 1024)
  req.push('{"latitude":')
  req.push('52}')
  req.push(null)
  t.same(await body, { latitude: 52 })
})

t.test('object members are counted outside strings only, escapes and all', async (t) => {
  const cases: Array<[string, number, boolean]> = [
    ['{"a":1}', 1, true],
    ['{"a":1,"b":2}', 1, false],
    ['{"a:b":1}', 1, true],
    ['{"a\\":":1}', 1, true], // an escaped quote does not end the string
    ['{"a\\\\":1,"c":2}', 1, false], // an escaped backslash does not escape the quote after it
    ['["x:y","12:00:00"]', 0, true],
    ['{"k" :1, "j" : 2}', 1, false], // white space before the colon
    ['{"unterminated', 0, true]
  ]
  for (const [text, limit, expected] of cases) t.equal(membersAtMost(Buffer.from(text), limit), expected, text)
})

t.test('a body with more members than allowed is refused before it is parsed', async (t) => {
  t.throws(() => parseJsonBytes(Buffer.from('{"a":1,"b":2,"c":3}'), 2), { code: 'invalid_request' })
  t.same(parseJsonBytes(Buffer.from('{"a":1,"b":"2:3"}'), 2), { a: 1, b: '2:3' })
})
