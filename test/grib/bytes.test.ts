// Byte and bit helpers, and ecCodes-compatible scaling.
import t from 'tap'
import { BitReader, bytesFor, f32, need, s16, s32, s8, sN, u16, u32, uN } from '../../src/grib/bytes.js'
import { power } from '../../src/grib/scaling.js'

t.test('unsigned big-endian integers', async (t) => {
  const b = Uint8Array.of(0xff, 0xfe, 0x01, 0x02, 0x03)
  t.same([u16(b, 0), u32(b, 0), uN(b, 2, 3)], [0xfffe, 0xfffe0102, 0x010203])
})

t.test('signed integers are sign and magnitude, not two\'s complement', async (t) => {
  t.same(
    [s8(Uint8Array.of(0x81), 0), s16(Uint8Array.of(0x80, 0x02), 0), s32(Uint8Array.of(0x80, 0, 0x07, 0xd0), 0)],
    [-1, -2, -2000]
  )
  t.same(
    [
      s8(Uint8Array.of(0x7f), 0),
      s16(Uint8Array.of(0x00, 0x02), 0),
      sN(Uint8Array.of(0x80, 0x05), 0, 2),
      sN(Uint8Array.of(0x05), 0, 1)
    ],
    [127, 2, -5, 5]
  )
})

t.test('IEEE float32 reference values', async (t) => {
  t.equal(f32(Uint8Array.of(0x3f, 0xc0, 0, 0), 0), 1.5)
  t.equal(f32(Uint8Array.of(0xc4, 0x7a, 0x20, 0), 0), -1000.5)
})

t.test('BitReader reads fields of any width across byte boundaries', async (t) => {
  const r = new BitReader(Uint8Array.of(0b10110011, 0b01010101, 0xff, 0xff, 0xff, 0xff, 0x12, 0x34), 0)
  t.same(
    [r.read(1), r.read(3), r.read(0), r.read(12), r.read(32), r.read(16)],
    [1, 0b011, 0, 0b001101010101, 0xffffffff, 0x1234]
  )
  const w = new BitReader(Uint8Array.of(0xab, 0xcd, 0xef, 0x12), 1)
  t.equal(w.read(16), 0xcdef, 'starts at its byte offset')
  t.equal(w.byteOffset, 3)
})

t.test('BitReader at 25 and 26 bits (the integer and float paths)', async (t) => {
  const b = Uint8Array.of(0xff, 0xff, 0xff, 0x80, 0xff, 0xff, 0xff, 0xc0)
  const r = new BitReader(b, 0)
  t.equal(r.read(25), 2 ** 25 - 1)
  const s = new BitReader(b, 4)
  t.equal(s.read(26), 2 ** 26 - 1)
})

t.test('bytesFor rounds up to whole bytes', async (t) => {
  t.same([bytesFor(3, 3), bytesFor(8, 1), bytesFor(1617, 12)], [2, 1, 2426])
})

t.test('need throws truncated with the offset', async (t) => {
  t.throws(() => need(10, 8, 4, 'x'), { name: 'GribError', reason: 'truncated', offset: 8 })
  t.doesNotThrow(() => need(10, 6, 4, 'x'))
})

t.test('power repeats division like ecCodes: 10^-4 is 1/10/10/10/10, not 1e-4', async (t) => {
  t.equal(power(-4, 10), 1 / 10 / 10 / 10 / 10)
  t.not(power(-4, 10), 10 ** -4)
  t.same([power(0, 10), power(1, 10), power(3, 2), power(-1, 2)], [1, 10, 8, 0.5])
})
