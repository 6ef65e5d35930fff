// The JSON answer's number columns: the text Float64Array.join gives (NaN as null), whether
// formatted as a string (small answers) or as bytes a chunk at a time (pool workers).
import t from 'tap'
import { numberBytes, numbers } from '../../src/samples/json.js'
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
