// Samples JSON bodies built to hurt (the security probe's finding 2): ten million items, a million
// failures, a million unknown properties, mounted against the built server in a process of its
// own. Each is a bounded 400 at once (no more work than reading the body); the process keeps serving with
// bounded memory.
import t from 'tap'
import { connect } from 'node:net'
import { startServerProcess } from '../helpers/server-process.js'
import { MAX_PROBLEM_ERRORS } from '../../src/contract/limits.js'
import { yardstick, yardsticks } from '../helpers/yardstick.js'

const server = await startServerProcess(t, { heapMb: 1024 })
const { key } = await server.newAccount()
const baseline = await server.rss()
const healthBefore = await yardstick(async () => await server.health(60_000))

async function post (body: string): Promise<{ status: number, body: any, ms: number, bytes: number }> {
  const started = performance.now()
  const res = await fetch(`${server.url}/v1/atmosphere/samples`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body,
    signal: AbortSignal.timeout(30_000)
  })
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text), ms: performance.now() - started, bytes: text.length }
}

const repeat = (item: string, n: number): string => `[${`${item},`.repeat(n - 1)}${item}]`

/**
 * What reading and parsing a body of `bytes` costs this route here and now: the same size, made of
 * numbers, with one stray byte at its very end, so it is read and parsed whole and then refused as
 * JSON. A hostile body refused "at once" costs no more than a few of these; the work the bounds keep
 * out (validating ten million items, listing a million failures) costs seconds to minutes more.
 */
async function readingCost (bytes: number): Promise<number> {
  const body = `{"latitude":${repeat('1', Math.max(1, Math.floor((bytes - 20) / 2)))}}x`
  return await yardstick(async () => {
    const res = await post(body).catch((err: Error) => ({ status: 0, body: String(err) }))
    if (res.status !== 400) throw new Error(`the yardstick body answered ${res.status}`)
  }, 1) // tens of megabytes a time: once warm, once measured
}
const rest = '"longitude":[0],"altitude_m":[0],"time":"2020-08-04T12:00:00Z","altitude_reference":"agl"'

t.test('ten million latitudes (30 MB) are refused by their count, as fast as the body is read', async (t) => {
  const body = `{"latitude":${repeat('91', 10_000_000)},${rest}}`
  t.ok(body.length > 29_000_000, `${(body.length / 1e6).toFixed(1)} MB`)
  const res = await post(body)
  t.equal(res.status, 400)
  t.equal(res.body.errors[0].type, 'too_long')
  t.same(res.body.errors[0].loc, ['body', 'latitude'])
  // sending and parsing 30 MB is most of it, what any body within the 32 MB limit costs; before the
  // bound: dead in 44 s
  const reading = await readingCost(body.length)
  t.ok(res.ms < yardsticks(3, reading), `answered in ${res.ms.toFixed(0)} ms (reading as much: ${
    reading.toFixed(0)} ms)`)
  t.ok(server.alive())
})

// "at once": about what reading and parsing as many bytes costs, well under the minutes a million
// items would take to list

t.test('a million failing items list the first few, at once', async (t) => {
  const n = 100_000 // the most points a request may have: every one of them fails twice
  const body = `{"latitude":${repeat('91', n)},"longitude":${repeat('"x"', n)},"altitude_m":${repeat('null', n)},` +
    `"time":${repeat('"yesterday"', n)},"altitude_reference":"agl"}`
  const res = await post(body)
  t.equal(res.status, 400)
  t.equal(res.body.errors.length, MAX_PROBLEM_ERRORS)
  t.match(res.body.detail, /\d{6} error\(s\)/, res.body.detail)
  t.ok(res.bytes < 8192, `the problem is small (${res.bytes} bytes)`)
  // every item is still checked (the detail counts them): more than reading, far less than listing them
  const reading = await readingCost(body.length)
  t.ok(res.ms < yardsticks(20, reading), `answered in ${res.ms.toFixed(0)} ms (reading as much: ${
    reading.toFixed(0)} ms)`)
})

t.test('a million unknown properties are refused before parsing, at once', async (t) => {
  const members = Array.from({ length: 1_000_000 }, (_, k) => `"k${k}":1`).join(',')
  const body = `{"latitude":[50],${rest},${members}}`
  const res = await post(body)
  t.equal(res.status, 400)
  t.equal(res.body.errors[0].type, 'too_many_properties')
  const reading = await readingCost(body.length)
  t.ok(res.ms < yardsticks(4, reading), `answered in ${res.ms.toFixed(0)} ms (reading as much: ${
    reading.toFixed(0)} ms)`)
})

t.test('a few unknown properties are each named', async (t) => {
  const res = await post(`{"latitude":[50],${rest},"colour":"red","size":3}`)
  t.equal(res.status, 400)
  t.same(res.body.errors.map((e: { loc: unknown[] }) => e.loc), [['body', 'colour'], ['body', 'size']])
  t.equal(res.body.errors[0].type, 'extra_forbidden')
})

t.test('colons inside strings are not members: thousands of times (two colons each) are read as usual', async (t) => {
  const n = 2000
  const body = JSON.stringify({ latitude: Array(n).fill(52.2), longitude: Array(n).fill(21),
    altitude_m: Array(n).fill(500), time: Array(n).fill('2020-08-04T12:00:00Z'), altitude_reference: 'agl' })
  const res = await post(body)
  t.equal(res.status, 200)
  t.equal(res.body.count, n)
})

t.test('megabytes sent to a 64 KiB route reach the client as its 413, not as a reset', async (t) => {
  const { hostname, port } = new URL(server.url)
  const big = JSON.stringify({ latitude: 52, longitude: 21, pad: Array(1_000_000).fill(91) })
  for (let k = 0; k < 6; k++) {
    const answer = await new Promise<string>((resolve) => {
      // a client that writes its whole body before it reads, asking to close after (as many do)
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        socket.write(`POST /v1/atmosphere/profile HTTP/1.1\r\nHost: aloft\r\nX-API-Key: ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${big.length}\r\nConnection: close\r\n\r\n`)
        socket.write(big)
      })
      let data = ''
      socket.on('data', (d) => { data += String(d) })
      socket.on('error', () => {})
      socket.on('close', () => resolve(data))
    })
    t.match(answer, /^HTTP\/1\.1 413 [^]*\r\nConnection: close\r\n/, `request ${k + 1}`)
  }
})

t.test('the process lives and its memory stayed bounded', async (t) => {
  t.ok(server.alive())
  t.ok(await server.health(60_000) < yardsticks(10, healthBefore), '/healthz answers as it did before the bodies')
  const grown = (await server.rss()) - baseline
  t.ok(grown < 800 * 1024 * 1024, `RSS grew ${(grown / 1048576).toFixed(0)} MB`)
})
