// RFC 3339 date-times as the contract accepts them: real calendar dates (leap years by the
// Gregorian rule, years 0000–9999 alike), no leap second, an offset.
import t from 'tap'
import { isRfc3339DateTime, isRfc3339DateTimeByPattern } from '../../src/contract/date-time.js'
import { validate } from '../../src/contract/validate.js'
import { SamplesRequest } from '../../src/contract/samples.js'
import { daysInMonth } from '../../src/contract/calendar.js'

t.test('days in each month agree with the calendar for every year 1600–2400', async (t) => {
  let wrong = 0
  for (let year = 1600; year <= 2400; year++) {
    for (let month = 1; month <= 12; month++) {
      if (daysInMonth(year, month) !== new Date(Date.UTC(year, month, 0)).getUTCDate()) wrong++
    }
  }
  t.equal(wrong, 0)
})

t.test('leap days: every fourth year, not centuries, but every fourth century', async (t) => {
  t.ok(isRfc3339DateTime('2020-02-29T00:00:00Z'))
  t.notOk(isRfc3339DateTime('2021-02-29T00:00:00Z'))
  t.notOk(isRfc3339DateTime('1900-02-29T00:00:00Z'))
  t.ok(isRfc3339DateTime('2000-02-29T00:00:00Z'))
  t.ok(isRfc3339DateTime('0000-02-29T00:00:00Z'), 'year 0 is a leap year (proleptic Gregorian)')
  t.ok(isRfc3339DateTime('0004-02-29T12:00:00+01:00'), 'years below 100 are not read as 19xx')
  t.notOk(isRfc3339DateTime('0100-02-29T00:00:00Z'))
})

t.test('month lengths and ranges', async (t) => {
  t.ok(isRfc3339DateTime('2020-04-30T23:59:59Z'))
  t.notOk(isRfc3339DateTime('2020-04-31T00:00:00Z'))
  t.notOk(isRfc3339DateTime('2020-13-01T00:00:00Z'))
  t.notOk(isRfc3339DateTime('2020-00-10T00:00:00Z'))
  t.notOk(isRfc3339DateTime('2020-12-00T00:00:00Z'))
})

t.test('the character-by-character reading of YYYY-MM-DDTHH:MM:SS[.fraction]Z: the pattern\'s verdict, any string',
  async (t) => {
    // valid times of every field value, then each mutated at one or two places: digits out of range,
    // other characters where digits or separators go, lower-case t and z, non-ASCII digits, lengths
    // one off (those take the pattern path and must still agree)
    let seed = 20261123
    const next = (m: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed % m }
    const pad = (x: number, w: number): string => String(x).padStart(w, '0')
    const replacements = [...'0123456789', '-', ':', 'T', 't', 'Z', 'z', '.', '+', ' ', '/', '\u0660', '\uff11', 'a']
    let checked = 0
    let accepted = 0
    let wrong: string[] = []
    const check = (s: string): void => {
      checked++
      const verdict = isRfc3339DateTime(s)
      if (verdict) accepted++
      if (verdict !== isRfc3339DateTimeByPattern(s) && wrong.length < 10) wrong.push(s)
    }
    for (let k = 0; k < 400_000; k++) {
      // a fraction of 0–9 digits (none, or `.` alone, half the time)
      const digits = next(10)
      const fraction = next(2) === 0 ? '' : '.' + Array.from({ length: digits }, () => next(10)).join('')
      const base = `${pad(next(10_000), 4)}-${pad(next(14), 2)}-${pad(next(33), 2)}T${pad(next(26), 2)}:` +
        `${pad(next(62), 2)}:${pad(next(62), 2)}${fraction}Z`
      check(base)
      const chars = [...base]
      for (let m = next(3); m >= 0; m--) chars[next(chars.length)] = replacements[next(replacements.length)]
      check(chars.join(''))
      if (k % 16 === 0) {
        check(base.slice(0, 19))
        check(base + 'Z')
        check(base.slice(0, 19) + '.5Z')
        check(base.slice(0, 19) + '+01:00')
      }
    }
    t.same(wrong, [], `${checked} strings, ${accepted} accepted, the same verdicts`)
    t.ok(accepted > 100_000 && accepted < checked - 100_000, 'both verdicts well represented')
    wrong = []
    for (const s of ['2020-02-29T00:00:00Z', '2021-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '0000-02-29T00:00:00Z',
      '2016-12-31T23:59:60Z', '2020-08-04T24:00:00Z', '2020-08-04T18:60:00Z', '2020-08-04 18:00:00Z',
      '2020-08-04T18:00:00z', '\u0662020-08-04T18:00:00Z', '2020-08-04T18:00:0\u0660Z', '2020-08-04T18:00:00.Z',
      '2020-08-04T18:00:00.000Z', '2020-08-04T18:00:00.1234567890123Z', '2020-08-04T18:00:00,5Z',
      '2020-08-04T18:00:00.5.Z', '2020-08-04T18:00:005Z', '2020-08-04T18:00:00.0+00:00']) check(s)
    t.same(wrong, [], 'the edges')
  })

t.test('a samples body\'s times: the same errors at the same places as before the fast reading', async (t) => {
  const n = 50
  const time = Array.from({ length: n }, (_, k) => `2020-08-04T${String(k % 24).padStart(2, '0')}:00:00Z`)
  time[3] = '2020-08-04T24:00:00Z'
  time[17] = '2021-02-29T00:00:00Z'
  time[30] = '2020-08-04t12:00:00Z'
  time[41] = '2020-08-04T12:00:00.25+01:00' // valid, by the pattern's path
  const body = { latitude: new Array(n).fill(52), longitude: new Array(n).fill(21), altitude_m: new Array(n).fill(10),
    time, altitude_reference: 'agl' }
  const checked = validate(SamplesRequest, body)
  t.equal(checked.ok, false)
  const errors = checked.ok ? [] : checked.errors
  t.same(errors.filter((e) => e.type === 'datetime_format').map((e) => e.loc),
    [['body', 'time', 3], ['body', 'time', 17], ['body', 'time', 30]])
})
