// Broken input gives a GribError with a reason, promptly: never a crash, a hang or a huge allocation.
import t from 'tap'
import { decodeField, GribError, scanMessages } from '../../src/grib/index.js'
import { fixture, prng } from './helpers.js'
import { yardstick, yardsticks } from '../helpers/yardstick.js'

const SMALL = 'nilsmagnus+grib/griblib/integrationtestdata/constant.grb' // 210 bytes, one message
const TWO = 'nilsmagnus+grib/griblib/integrationtestdata/template5_3.grib2' // two messages

function reasonOf (fn: () => unknown): string {
  try { fn() } catch (err) {
    if (err instanceof GribError) return err.reason
    throw err
  }
  return 'ok'
}

const scanAndDecode = (b: Uint8Array) => () => { for (const f of scanMessages(b)) decodeField(b, f) }

t.test('a file truncated at every byte gives truncated (or not_grib before the first marker)', async (t) => {
  const src = fixture(SMALL)
  const seen = new Set<string>()
  for (let n = 0; n < src.length; n++) {
    const r = reasonOf(scanAndDecode(src.subarray(0, n)))
    seen.add(r)
    if (r !== (n < 4 ? 'not_grib' : 'truncated')) t.fail(`cut at ${n}: ${r}`)
  }
  t.same([...seen].sort(), ['not_grib', 'truncated'])
})

t.test('a two-message file cut inside the second message is truncated, not silently short', async (t) => {
  const src = fixture(TWO)
  const [, b] = scanMessages(src)
  t.equal(reasonOf(() => scanMessages(src.subarray(0, b.offset + 100))), 'truncated')
})

t.test('a total length larger than the file is truncated', async (t) => {
  const b = fixture(SMALL).slice()
  new DataView(b.buffer).setUint32(12, 5000)
  t.throws(() => scanMessages(b), { name: 'GribError', reason: 'truncated', offset: 8 })
})

t.test('a total length that does not end on 7777 is bad_length', async (t) => {
  const b = fixture(SMALL).slice()
  new DataView(b.buffer).setUint32(12, 200)
  t.throws(() => scanMessages(b), { name: 'GribError', reason: 'bad_length' })
})

t.test('a length claiming 4 GB or more is refused at once', async (t) => {
  const b = fixture(SMALL).slice()
  // at once: no more than scanning a few whole messages costs (reading 4 GB would cost seconds)
  const scan = await yardstick(() => scanMessages(fixture(SMALL)), 21)
  new DataView(b.buffer).setUint32(8, 1)
  const start = performance.now()
  t.throws(() => scanMessages(b), { name: 'GribError', reason: 'bad_length', offset: 8 })
  new DataView(b.buffer).setUint32(8, 0)
  new DataView(b.buffer).setUint32(12, 0xffffffff)
  t.throws(() => scanMessages(b), { name: 'GribError', reason: 'truncated' })
  const ms = performance.now() - start
  t.ok(ms < yardsticks(20, scan), `${ms.toFixed(2)} ms (a whole message's scan: ${scan.toFixed(3)} ms)`)
})

t.test('a section length running past the message is bad_length', async (t) => {
  const b = fixture(SMALL).slice()
  new DataView(b.buffer).setUint32(16, 0x7fffffff) // section 1 length
  t.throws(() => scanMessages(b), { name: 'GribError', reason: 'bad_length', offset: 16 })
})

t.test('a grid whose Ni×Nj disagrees with its point count is corrupt_section', async (t) => {
  const b = fixture(SMALL).slice()
  const f = scanMessages(b)[0]
  const s3 = f.offset + 16 + 21 // section 3 follows a 21-byte section 1 in this file
  t.equal(b[s3 + 4], 3)
  new DataView(b.buffer).setUint32(s3 + 30, 361) // Ni
  t.throws(() => scanMessages(b), { name: 'GribError', reason: 'corrupt_section' })
})

t.test('an HTML page saved as GRIB is not_grib', async (t) => {
  t.throws(() => scanMessages(fixture('GAO8A+earth/gfs.t00z.pgrb2.1p00.f000')),
    { name: 'GribError', reason: 'not_grib' })
})

t.test('random bytes and an empty buffer are not_grib', async (t) => {
  const rnd = prng(7)
  const b = new Uint8Array(100000).map(() => Math.floor(rnd() * 256))
  t.equal(reasonOf(() => scanMessages(b)), 'not_grib')
  t.equal(reasonOf(() => scanMessages(new Uint8Array(0))), 'not_grib')
})

t.test('GribError carries reason and offset; its message names the offset', async (t) => {
  const e = new GribError('truncated', 'x', 12)
  t.same([e.name, e.reason, e.offset, e.message], ['GribError', 'truncated', 12, 'x (at byte 12)'])
  t.equal(new GribError('bad_idx', 'y').offset, undefined)
})
