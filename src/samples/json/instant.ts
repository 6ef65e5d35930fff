// RFC 3339 date-times (as the request schema accepts them) to epoch milliseconds, as
// `new Date(text).getTime()` gives them, without a Date per value: a 100 000-point body's
// times cost ~50 ms through Date parsing and a memo, a few ms this way.
import { daysInMonth } from '../../contract/index.js'

const ZERO = 0x30
const MS_PER_DAY = 86_400_000

/** Two decimal digits at `at`; NaN when either is not a digit. */
function two (text: string, at: number): number {
  const a = text.charCodeAt(at) - ZERO
  const b = text.charCodeAt(at + 1) - ZERO
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN
}

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1–12). */
function daysFromCivil (year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

/**
 * Epoch milliseconds of `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, the fraction truncated to
 * milliseconds (as Date does). Anything else, or a field out of range, goes to Date itself.
 */
export function instantMs (text: string): number {
  const length = text.length
  const fast = length >= 20 && text.charCodeAt(4) === 0x2d && text.charCodeAt(7) === 0x2d &&
    text.charCodeAt(10) === 0x54 && text.charCodeAt(13) === 0x3a && text.charCodeAt(16) === 0x3a
  if (!fast) return new Date(text).getTime()
  const year = two(text, 0) * 100 + two(text, 2)
  const month = two(text, 5)
  const day = two(text, 8)
  const hour = two(text, 11)
  const minute = two(text, 14)
  const second = two(text, 17)
  let at = 19
  let fraction = 0
  if (text.charCodeAt(at) === 0x2e) {
    // only the first three digits count (later ones are skipped: Date truncates)
    const first = ++at
    let scale = 100
    for (; at < length; at++) {
      const d = text.charCodeAt(at) - ZERO
      if (d < 0 || d > 9) break
      fraction += d * scale
      scale = scale === 1 ? 0 : scale / 10
    }
    if (at === first) return new Date(text).getTime()
  }
  let offset = 0
  const zone = text.charCodeAt(at)
  if ((zone === 0x2b || zone === 0x2d) && at + 6 === length && text.charCodeAt(at + 3) === 0x3a) {
    const hours = two(text, at + 1)
    const minutes = two(text, at + 4)
    if (!(hours <= 23 && minutes <= 59)) return new Date(text).getTime()
    offset = (hours * 60 + minutes) * (zone === 0x2b ? 60_000 : -60_000)
  } else if (zone !== 0x5a || at + 1 !== length) {
    return new Date(text).getTime()
  }
  // the ranges the schema holds (a real date, no leap second); else Date decides
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 28 + 3 && hour <= 23 && minute <= 59 && second <= 59) ||
    Number.isNaN(year + offset) || day > daysInMonth(year, month)) {
    return new Date(text).getTime()
  }
  return daysFromCivil(year, month, day) * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 +
    fraction - offset
}
