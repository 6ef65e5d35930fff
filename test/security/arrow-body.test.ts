// Arrow request bodies built to hurt (the security probe's findings 1, 3, 7 and 9): counts and
// lengths in the stream's metadata that the bytes do not back, mounted against the built server
// in a process of its own. Each is a bounded 400; the process keeps serving; no request ever sees
// another's bytes.
import t from 'tap'
import { yardstick, yardsticks } from '../helpers/yardstick.js'
import { Dictionary, Int32, Table, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow'
import { startServerProcess } from '../helpers/server-process.js'
import { messagesOf, samplesStream, withI64, withU32 } from '../helpers/arrow-surgery.js'
import { ARROW_STREAM } from '../../src/contract/samples.js'

const server = await startServerProcess(t, {
  heapMb: 512, env: { ALOFT_RATE_BURST: '1000', ALOFT_RATE_PER_SECOND: '1000' }
})
const { key } = await server.newAccount()
const baseline = await server.rss()

async function post (body: Uint8Array): Promise<{ status: number, body: any, ms: number }> {
  const started = performance.now()
  const res = await fetch(`${server.url}/v1/atmosphere/samples?altitude_reference=agl`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': ARROW_STREAM }, body,
    signal: AbortSignal.timeout(20_000)
  })
  const text = await res.text()
  const json = res.headers.get('content-type')?.includes('json') === true
  return { status: res.status, body: json ? JSON.parse(text) : text, ms: performance.now() - started }
}

const valid = samplesStream(3)
const batch = messagesOf(valid).find((m) => m.headerType === 3)!
/**
 * "At once" is no more work than a few ordinary answers of the route (reading two billion batches,
 * or thousands of tiny ones, costs seconds); /healthz's own time, likewise, measured beside.
 */
let answerMs = 0
let healthMs = 0

t.test('a valid 3-row stream is answered', async (t) => {
  const res = await post(valid)
  t.equal(res.status, 200)
  t.equal(res.body.count, 3)
  answerMs = await yardstick(async () => await post(valid))
  healthMs = await yardstick(async () => await server.health(60_000))
})

t.test('finding 1: a record batch count of 2 000 000 000 is a 400, and the server lives', async (t) => {
  const attacks: Array<[string, Uint8Array]> = [
    ['nodes vector length', withU32(valid, batch.nodesCountAt!, 2_000_000_000)],
    ['buffers vector length', withU32(valid, batch.buffersCountAt!, 2_000_000_000)],
    ['batch row count', withI64(valid, batch.rowsAt!, 2_000_000_000)],
    ['body length', withI64(valid, batch.bodyLengthAt!, 2_000_000_000)],
    ['metadata length', withU32(valid, batch.lengthAt, 2_000_000_000)]
  ]
  for (const [what, body] of attacks) {
    t.ok(body.length < 1000, `${what}: the body is small (${body.length} bytes)`)
    const res = await post(body)
    t.equal(res.status, 400, `${what}: 400`)
    t.equal(res.body.code, 'invalid_request', what)
    t.ok(res.ms < yardsticks(10, answerMs), `${what}: answered in ${res.ms.toFixed(0)} ms (an ordinary ` +
      `answer: ${answerMs.toFixed(0)} ms)`)
    const reason = String(res.body.errors[0].msg)
    t.match(reason, /Arrow|points/, `${what}: the reason names the stream (${reason})`)
    t.ok(server.alive(), `${what}: the process lives`)
  }
  t.ok(await server.health(60_000) < yardsticks(10, healthMs), '/healthz answers at once')
})

t.test('finding 1: a dictionary batch (with a 2·10⁹ length) is refused before apache-arrow reads it', async (t) => {
  // a valid stream with a dictionary-encoded column next to the point columns
  const points = tableFromIPC(samplesStream(3))
  const withDictionary = tableToIPC(new Table({
    ...Object.fromEntries(['latitude', 'longitude', 'altitude_m', 'time']
      .map((name) => [name, points.getChild(name)!])),
    station: vectorFromArray(['a', 'b', 'a'], new Dictionary(new Utf8(), new Int32()))
  }), 'stream')
  const dictionary = messagesOf(withDictionary).find((m) => m.headerType === 2)!
  t.ok(dictionary.rowsAt! > 0, 'the dictionary\'s length is found')
  for (const body of [withDictionary, withI64(withDictionary, dictionary.rowsAt!, 2_000_000_000)]) {
    const res = await post(body)
    t.equal(res.status, 400)
    t.match(res.body.errors[0].msg, /dictionary/)
  }
  t.ok(server.alive())
})

t.test('finding 3: a stream cut short never reads the memory of an earlier request', async (t) => {
  // the victim: 100 000 points, answered normally
  const victim = samplesStream(100_000)
  const victimAnswer = await post(victim)
  t.equal(victimAnswer.status, 200, 'the victim is served')
  // the attacker: 37 080 rows whose time buffer declares 8 bytes, the body cut right after it
  const rows = 37_080
  const full = samplesStream(rows)
  const spots = messagesOf(full).find((m) => m.headerType === 3)!
  const [timeOffsetAt, timeLengthAt] = spots.buffers![spots.buffers!.length - 1]
  const timeOffset = Number(new DataView(full.buffer).getBigInt64(timeOffsetAt, true))
  let attack = withI64(full, timeLengthAt, 8)
  attack = withI64(attack, spots.bodyLengthAt!, timeOffset + 8)
  attack = attack.slice(0, spots.bodyStart + timeOffset + 8)
  const res = await post(attack)
  t.equal(res.status, 400, 'refused')
  t.match(res.body.errors[0].msg, /buffer .* has 8 bytes/, res.body.errors[0].msg)
  t.notOk(JSON.stringify(res.body).includes('"ok"'), 'no point is answered')
})

t.test('finding 7: thousands of tiny record batches are refused at once', async (t) => {
  const one = samplesStream(1)
  const [schema, first] = messagesOf(one)
  const schemaBytes = one.subarray(0, first.lengthAt - 4)
  const batchBytes = one.subarray(first.lengthAt - 4, first.bodyStart + first.bodyLength)
  t.ok(schema.headerType === 1)
  const count = 5000
  const body = new Uint8Array(schemaBytes.length + count * batchBytes.length + 8)
  body.set(schemaBytes, 0)
  for (let k = 0; k < count; k++) body.set(batchBytes, schemaBytes.length + k * batchBytes.length)
  body.set([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], body.length - 8)
  const res = await post(body)
  t.equal(res.status, 400)
  t.equal(res.body.errors[0].type, 'too_long')
  t.match(res.body.errors[0].msg, /record batches/)
  t.ok(res.ms < yardsticks(10, answerMs), `answered in ${res.ms.toFixed(0)} ms (an ordinary answer: ${
    answerMs.toFixed(0)} ms)`)
})

t.test('finding 9: the Arrow file format is named, not read as a stream', async (t) => {
  const file = tableToIPC(tableFromIPC(samplesStream(3)), 'file')
  const res = await post(file)
  t.equal(res.status, 400)
  t.match(res.body.errors[0].msg, /file format.*stream/)
})

t.test('finding 9: a buffer declared past the body is a 400, not a 500', async (t) => {
  const [offsetAt] = batch.buffers![1]
  const res = await post(withI64(valid, offsetAt, batch.bodyLength))
  t.equal(res.status, 400)
  t.match(res.body.errors[0].msg, /spans bytes/)
})

t.test('after every attack the process lives and its memory stayed bounded', async (t) => {
  t.ok(server.alive())
  t.ok(await server.health(60_000) < yardsticks(10, healthMs), '/healthz answers at once')
  const grown = (await server.rss()) - baseline
  t.ok(grown < 300 * 1024 * 1024, `RSS grew ${(grown / 1048576).toFixed(0)} MB`)
})
