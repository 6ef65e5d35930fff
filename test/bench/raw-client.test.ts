// bench/raw-client, the open loop's lean HTTP client: statuses read from real answers, bodies of
// any size consumed, a closing server reconnected to, a silent one timed out, a busy pool queued.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { formatRequest, RawPool, type Outcome } from '../../bench/lib/raw-client.js'

const server = createServer((req, res) => {
  let body = ''
  req.on('data', (c: Buffer) => { body += c.toString() })
  req.on('end', () => {
    if (req.url === '/silent') return
    if (req.url === '/close') res.setHeader('Connection', 'close')
    const text = req.url === '/big' ? 'x'.repeat(200_000) : JSON.stringify({ got: body })
    res.statusCode = req.url === '/missing' ? 404 : 200
    res.setHeader('Content-Length', Buffer.byteLength(text))
    res.end(text)
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
t.teardown(() => { server.closeAllConnections(); server.close() })
const port = (server.address() as AddressInfo).port

const ask = async (pool: RawPool, path: string, body: string | null = null): Promise<Outcome> =>
  await new Promise((resolve) => pool.request(formatRequest(body === null ? 'GET' : 'POST', '127.0.0.1', port, path,
    { 'content-type': 'application/json' }, body === null ? null : Buffer.from(body)), resolve))

t.test('statuses of successive answers on one kept-alive connection, large bodies included', async (t) => {
  const pool = new RawPool('127.0.0.1', port, 1, 2000)
  t.teardown(() => pool.close())
  t.same(await ask(pool, '/ok', '{"a":1}'), { status: 200 })
  t.same(await ask(pool, '/big'), { status: 200 })
  t.same(await ask(pool, '/missing'), { status: 404 })
  t.same(await ask(pool, '/ok'), { status: 200 })
})

t.test('a server closing the connection is answered, then connected to again', async (t) => {
  const pool = new RawPool('127.0.0.1', port, 1, 2000)
  t.teardown(() => pool.close())
  t.same(await ask(pool, '/close'), { status: 200 })
  t.same(await ask(pool, '/ok'), { status: 200 })
})

t.test('a server that never answers is an error after the timeout, and the connection serves again', async (t) => {
  const pool = new RawPool('127.0.0.1', port, 1, 200)
  t.teardown(() => pool.close())
  t.same(await ask(pool, '/silent'), { error: 'error:timeout' })
  t.same(await ask(pool, '/ok'), { status: 200 })
})

t.test('requests beyond the pool wait for a free connection, and all are answered', async (t) => {
  const pool = new RawPool('127.0.0.1', port, 2, 2000)
  t.teardown(() => pool.close())
  const outcomes = await Promise.all(Array.from({ length: 10 }, async (_, k) => await ask(pool, '/ok', `{"k":${k}}`)))
  t.same(outcomes, Array.from({ length: 10 }, () => ({ status: 200 })))
})
