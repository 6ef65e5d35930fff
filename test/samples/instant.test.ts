// instantMs: the request's RFC 3339 times as epoch milliseconds, exactly what Date parses them to.
import t from 'tap'
import { instantMs } from '../../src/samples/json/index.js'
import { isRfc3339DateTime } from '../../src/contract/date-time.js'
import { uniforms } from '../../src/trajectory/ensemble.js'

const pad = (x: number, width: number): string => String(x).padStart(width, '0')

t.test('equals Date on random date-times, valid or not (ranges, fractions, offsets)', async (t) => {
  const next = uniforms(16)
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1))
  let valid = 0
  let differ = 0
  for (let k = 0; k < 50_000; k++) {
    const year = next() < 0.1 ? int(0, 9999) : int(1900, 2100)
    let text = `${pad(year, 4)}-${pad(int(0, 13), 2)}-${pad(int(0, 32), 2)}T` +
      `${pad(int(0, 25), 2)}:${pad(int(0, 60), 2)}:${pad(int(0, 61), 2)}`
    const fraction = int(0, 4)
    if (fraction === 1) text += `.${int(0, 9)}`
    if (fraction === 2) text += `.${pad(int(0, 999), 3)}`
    if (fraction === 3) text += `.${'9'.repeat(int(4, 25))}`
    if (fraction === 4) text += '.'
    const zone = int(0, 4)
    text += zone < 2 ? 'Z' : zone === 4 ? 'z' : `${zone === 2 ? '+' : '-'}${pad(int(0, 25), 2)}:${pad(int(0, 60), 2)}`
    if (isRfc3339DateTime(text)) valid++
    if (!Object.is(instantMs(text), new Date(text).getTime())) differ++
  }
  t.ok(valid > 10_000, `${valid} valid date-times among them`)
  t.equal(differ, 0)
})

t.test('edge cases: years below 100, leap days, the last millisecond, long fractions', async (t) => {
  for (const text of ['0000-01-01T00:00:00Z', '0099-12-31T23:59:59.999+23:59', '9999-12-31T23:59:59.999-23:59',
    '2000-02-29T00:00:00Z', '1900-02-28T12:00:00+01:00', '2020-08-04T12:00:00.99999999999999999999999Z',
    '2020-08-04T12:00:00.5Z', '2020-08-04T12:00:00', '2020-08-04', 'not a time']) {
    t.ok(Object.is(instantMs(text), new Date(text).getTime()), text)
  }
})
