// The proleptic Gregorian calendar, by arithmetic (no Date per value): what the date-time check
// and the samples' fast time parser both need.

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Days in a month (1–12) of a year (0000–9999 alike: no 19xx reading of years below 100). */
export function daysInMonth (year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]
}
