// RFC 3339 date-times as the contract accepts them: real calendar dates (leap years by the
// Gregorian rule, years 0000–9999 alike), no leap second, an offset.
import t from 'tap'
import { isRfc3339DateTime } from '../../src/contract/validate.js'
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
