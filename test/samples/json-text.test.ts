// The JSON answer's number columns: the text Float64Array.join gives (NaN as null), whether
// formatted as a string (small answers) or as bytes a chunk at a time (pool workers).
import t from 'tap'
import { indexBytes, numberBytes, numbers, statusBytes } from '../../src/samples/json/index.js'
import { SAMPLE_STATUSES } from '../../src/contract/samples.js'
import { uniforms } from '../../src/trajectory/ensemble.js'

const joined = (values: Float64Array): string => {
  const text = values.join(',')
  return `[${values.includes(NaN) ? text.replace(/NaN/g, 'null') : text}]`
}

const AWKWARD = [0, -0, NaN, Infinity, -Infinity, 1e21, 1e-7, 1e-6, 123456789012345680000, 5e-324, -5e-324,
  1.7976931348623157e308, 0.1, 0.30000000000000004, -1.5e-300, 2 ** 53, 2 ** 53 + 2, 9.999999999999999e20]

t.test('the same text as join, for any doubles and across chunk boundaries', async (t) => {
  const next = uniforms(7)
  for (const n of [0, 1, 4095, 4096, 4097, 10_000]) {
    const values = new Float64Array(n)
    const words = new Uint32Array(values.buffer)
    for (let k = 0; k < n; k++) {
      const pick = next()
      if (pick < 0.1) {
        values[k] = AWKWARD[Math.floor(next() * AWKWARD.length)]
      } else if (pick < 0.4) {
        words[2 * k] = next() * 2 ** 32 // any bit pattern
        words[2 * k + 1] = next() * 2 ** 32
      } else {
        values[k] = (next() - 0.5) * 10 ** Math.floor(next() * 30 - 12)
      }
    }
    const expected = joined(values)
    t.equal(numbers(values), expected, `${n} values as a string`)
    t.equal(Buffer.from(numberBytes(values)).toString('latin1'), expected, `${n} values as bytes`)
    values.fill(NaN, 0, Math.min(n, 5000))
    t.equal(Buffer.from(numberBytes(values)).toString('latin1'), joined(values), `${n} values, many NaN`)
  }
})

t.test('unit indices: the text joining them gave, −1 as null, whatever their size', async (t) => {
  const next = uniforms(11)
  const before = (values: Int32Array): string => {
    const text = values.join(',')
    return `[${values.includes(-1) ? text.replace(/-1/g, 'null') : text}]`
  }
  for (const n of [0, 1, 2, 1000, 100_000]) {
    const values = new Int32Array(n).map(() => {
      const pick = next()
      return pick < 0.1 ? -1 : pick < 0.9 ? Math.floor(next() * 10) : Math.floor(next() * 2 ** 31)
    })
    t.equal(Buffer.from(indexBytes(values)).toString('latin1'), before(values), `${n} indices`)
  }
  t.equal(Buffer.from(indexBytes(Int32Array.of(9, 10, 31, -1, 0, 2147483647))).toString('latin1'),
    '[9,10,31,null,0,2147483647]')
})

t.test('statuses: the text joining their JSON strings gave', async (t) => {
  const next = uniforms(13)
  for (const n of [0, 1, 3, 50_000]) {
    const status = new Uint8Array(n).map(() => Math.floor(next() * SAMPLE_STATUSES.length))
    const before = `[${Array.from(status, (s) => JSON.stringify(SAMPLE_STATUSES[s])).join(',')}]`
    t.equal(Buffer.from(statusBytes(status)).toString('latin1'), before, `${n} statuses`)
  }
})
