// Large bodies read into reused memory: the same bytes as joining the chunks, a buffer reused only
// once given back, only the pool's own buffers taken back; and the samples route answering Arrow
// requests of different sizes one after another from the same memory.
import t from 'tap'
import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { Table, Timestamp, TimeUnit, makeVector, tableToIPC, vectorFromArray } from 'apache-arrow'
import { BodyBuffers } from '../../src/http/body/buffers.js'
import { readLimited } from '../../src/http/body/read.js'
import { ARROW_STREAM } from '../../src/contract/samples.js'
import { startTestService } from '../helpers/service.js'

function request (bytes: Uint8Array, pieces: number, declared: boolean): IncomingMessage {
  const chunks: Buffer[] = []
  const size = Math.ceil(bytes.length / pieces)
  for (let at = 0; at < bytes.length; at += size) chunks.push(Buffer.from(bytes.subarray(at, at + size)))
  return Object.assign(Readable.from(chunks, { objectMode: false }), {
    headers: declared ? { 'content-length': String(bytes.length) } : {}
  }) as unknown as IncomingMessage
}

t.test('a declared body is copied into a pool buffer as it comes: the same bytes as joined', async (t) => {
  const buffers = new BodyBuffers()
  const body = Uint8Array.from({ length: 100_000 }, (_, k) => (k * 31) & 0xff)
  const a = await readLimited(request(body, 7, true), 1 << 20, buffers)
  t.same(Buffer.compare(a, Buffer.from(body)), 0, 'the bytes')
  const joined = await readLimited(request(body, 7, false), 1 << 20, buffers)
  t.same(Buffer.compare(joined, Buffer.from(body)), 0, 'without a declared length, joined as before')
  buffers.give(joined) // not the pool's: ignored
  t.equal(buffers.idle, 0)
  const other = await readLimited(request(body.subarray(0, 5000), 3, true), 1 << 20, buffers)
  t.not(other.buffer, a.buffer, 'a buffer still held is not handed out again')
  buffers.give(a)
  buffers.give(a) // twice: kept once
  t.equal(buffers.idle, 1)
  const smaller = body.subarray(10, 60_010).map((x) => x ^ 0x5a)
  const b = await readLimited(request(smaller, 5, true), 1 << 20, buffers)
  t.equal(b.buffer, a.buffer, 'the given-back buffer, reused')
  t.equal(b.length, smaller.length)
  t.same(Buffer.compare(b, Buffer.from(smaller)), 0, 'holding the new body only')
  t.equal(buffers.idle, 0)
  for (const n of [10, 20, 30]) buffers.give(buffers.take(n))
  t.equal(buffers.idle, 2, 'at most two kept')
  await t.rejects(readLimited(request(body, 3, true), 1000, buffers), { code: 'payload_too_large' })
})

t.test('samples over Arrow: requests of different sizes in turn, each answered from its own points', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_BURST: '100', ALOFT_RATE_PER_SECOND: '100' } })
  const { key } = await svc.newAccount()
  const body = (n: number, shift: number): Uint8Array => tableToIPC(new Table({
    latitude: makeVector(Float64Array.from({ length: n }, (_, k) => 48.5 + ((k + shift) % 200) * 0.03)),
    longitude: makeVector(Float64Array.from({ length: n }, (_, k) => 13.5 + ((k * 3 + shift) % 300) * 0.03)),
    altitude_m: makeVector(Float64Array.from({ length: n }, (_, k) => ((k + shift) % 50) * 300)),
    time: vectorFromArray(Array.from({ length: n }, () => new Date(Date.parse('2020-08-04T15:00:00Z'))),
      new Timestamp(TimeUnit.MILLISECOND, 'UTC'))
  }), 'stream')
  const post = async (bytes: Uint8Array): Promise<Uint8Array> => {
    const res = await fetch(`${svc.url}/v1/atmosphere/samples?altitude_reference=agl&fields=temperature_k`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': ARROW_STREAM, accept: ARROW_STREAM }, body: bytes
    })
    t.equal(res.status, 200)
    return new Uint8Array(await res.arrayBuffer())
  }
  const large = body(3000, 0)
  const first = await post(large)
  await post(body(500, 7))
  await post(body(2000, 3))
  t.same(Buffer.compare(Buffer.from(await post(large)), Buffer.from(first)), 0, 'the same answer again')
})
