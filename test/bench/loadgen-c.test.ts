// bench/children/loadgen.c, the open loop's C client (through bench/loadgen's runLoad): every due request sent
// and answered and counted by kind and status, latency counted from when a request was due (a slow
// server shows as growing latency, not as fewer requests), fresh bodies each their own, a silent
// server timed out and a closing one connected to again. Needs a C compiler; skipped without one.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hasCLoadgen, runLoad, type LoadRequest } from '../../bench/lib/load-run.js'
import { yardstick, yardsticks } from '../helpers/yardstick.js'

const skip = hasCLoadgen() ? false : 'no C compiler (cc) here: bench/children/loadgen.c cannot be built'
const bodies: string[] = []
let slowMs = 0
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (c: Buffer) => { body += c.toString() })
  req.on('end', () => {
    if (req.url === '/silent') return
    if (req.url === '/fresh') bodies.push(body)
    const answer = (): void => {
      if (req.url === '/close') res.setHeader('Connection', 'close')
      const text = req.url === '/big' ? 'x'.repeat(300_000) : '{"ok":true}'
      res.statusCode = req.url === '/fail' ? 500 : 200
      res.setHeader('Content-Length', Buffer.byteLength(text))
      res.end(text)
    }
    if (req.url === '/slow') setTimeout(answer, slowMs)
    else answer()
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
t.teardown(() => { server.closeAllConnections(); server.close() })
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const get = (kind: string, path: string, weight = 1): LoadRequest => ({ kind, method: 'GET', url: base + path, weight })

t.test('every due request is sent once and answered, counted by kind and status', { skip }, async (t) => {
  const r = await runLoad({ mode: 'open', client: 'c', rate: 400, connections: 4, seconds: 1, warmupSeconds: 0.2,
    requests: [get('ok', '/ok'), get('big', '/big'), get('fail', '/fail')] })
  t.equal(r.sent, 400, 'rate × seconds requests were due in the measured second')
  t.equal(r.completed, 400)
  t.equal(r.unfinished, 0)
  const counted = (kind: string, status: string): number => r.outcomes[`${kind} ${status}`] ?? 0
  t.equal(counted('ok', '200') + counted('big', '200') + counted('fail', '500'), 400)
  t.ok(counted('ok', '200') > 50 && counted('big', '200') > 50 && counted('fail', '500') > 50, 'all three kinds')
  t.equal(r.windows[0].errors, counted('fail', '500'), 'a 5xx answer is an error')
  // a quick server's answers come quickly: within ten of its ordinary answers timed one by one beside the
  // run (a latency counted from the run's start rather than each request's due time would be hundreds of ms)
  const bound = yardsticks(10, await yardstick(async () => await (await fetch(`${base}/ok`)).arrayBuffer()))
  t.ok(r.latencyMs.p50 < bound, `p50 ${r.latencyMs.p50} ms from a quick local server (at most ${bound.toFixed(0)})`)
  t.ok(r.schedulerLagMs >= 0 && r.schedulerLagMs < 1000)
})

t.test('latency counts from when a request was due: a slow server shows as queueing', { skip }, async (t) => {
  slowMs = 20
  // one connection answering every 20 ms against 100 requests due a second: each waits longer than the last
  const r = await runLoad({ mode: 'open', client: 'c', rate: 100, connections: 1, seconds: 0.5, drainSeconds: 5,
    requests: [get('slow', '/slow')] })
  t.equal(r.sent, 50)
  t.equal(r.completed, 50, 'none dropped, only late')
  t.ok(r.latencyMs.p50 > 100, `p50 ${r.latencyMs.p50} ms, far above the server's 20 ms`)
  t.ok(r.latencyMs.max > 400, `max ${r.latencyMs.max} ms: the last waited for about 49 answers of 20 ms`)
})

t.test('fresh bodies: a new one for every request', { skip }, async (t) => {
  bodies.length = 0
  const r = await runLoad({ mode: 'open', client: 'c', rate: 200, connections: 2, seconds: 0.5,
    requests: [{ kind: 'fresh', method: 'POST', url: `${base}/fresh`, freshProfileSeed: 3 }] })
  t.equal(r.completed, 100)
  t.equal(bodies.length, 100)
  t.equal(new Set(bodies).size, 100)
  t.ok(bodies.every((b) => typeof (JSON.parse(b) as { latitude: unknown }).latitude === 'number'))
})

t.test('a silent server is timed out; a closing one is connected to again', { skip }, async (t) => {
  const silent = await runLoad({ mode: 'open', client: 'c', rate: 20, connections: 2, seconds: 0.2, timeoutMs: 200,
    drainSeconds: 2, requests: [get('silent', '/silent')] })
  t.equal(silent.outcomes['silent error:timeout'], 4)
  const closing = await runLoad({ mode: 'open', client: 'c', rate: 100, connections: 1, seconds: 0.3,
    requests: [get('close', '/close')] })
  t.same(closing.outcomes, { 'close 200': 30 })
})

t.test('the C client runs open loops only', { skip }, async (t) => {
  await t.rejects(runLoad({ mode: 'closed', client: 'c', connections: 1, seconds: 0.1, requests: [get('ok', '/ok')] }),
    /open loops only/)
})

t.test('the C client refuses more fresh requests than it makes ahead, before sending any', { skip }, async (t) => {
  bodies.length = 0
  await t.rejects(runLoad({ mode: 'open', client: 'c', rate: 300_000, connections: 1, seconds: 1,
    requests: [{ kind: 'fresh', method: 'POST', url: `${base}/fresh`, freshProfileSeed: 4 }] }), /at most 200000 fresh/)
  t.equal(bodies.length, 0)
})
