// A number written as text, as the configuration and the HTTP query readers take it: digits, an
// optional fraction and exponent; nothing Number() would read beyond that.
import t from 'tap'
import { isDecimal } from '../../src/contract/decimal.js'

const ACCEPTED = ['1', '-1.5', '.5', '5.', '1e3', '+2E-2', '0', '-0', '007', '1.5e-7', '-.25', '12.e4', '1e999']
const REFUSED = ['', '.', 'e3', '1e', '1e+', '0x10', '0b1', '0o7', ' 1', '1 ', 'Infinity', '-Infinity', 'NaN', '+',
  '-', '+-1', '1.2.3', '1,5', '1_000', '١', '1e3.5', '.e3', 'abc', '1a']

t.test('accepts digits with an optional sign, fraction and exponent', async (t) => {
  for (const text of ACCEPTED) t.ok(isDecimal(text), JSON.stringify(text))
})

t.test('refuses everything else, whitespace included (callers trim where they mean to)', async (t) => {
  for (const text of REFUSED) t.notOk(isDecimal(text), JSON.stringify(text))
})

t.test('what it accepts Number reads as a number', async (t) => {
  for (const text of ACCEPTED) t.notOk(Number.isNaN(Number(text)), JSON.stringify(text))
})
