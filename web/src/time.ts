// Times as the API speaks them, in UTC: the inputs show and take `2020-08-04T12:00Z` (seconds
// and a space for the T are accepted too), never the browser's local, locale-formatted picker.

const UTC_INPUT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]00:?00)?$/i

export const TIME_EXAMPLE = '2020-08-04T12:00Z'

/** An instant for a time input: `2020-08-04T12:00Z` (seconds only when not zero). */
export function toUtcInput (iso: string): string {
  const d = new Date(iso)
  const s = d.toISOString()
  return (d.getUTCSeconds() === 0 ? s.slice(0, 16) : s.slice(0, 19)) + 'Z'
}

/** What a person typed, as the RFC 3339 instant the API takes, or a sentence saying what is wrong. */
export function fromUtcInput (value: string): { iso: string } | { error: string } {
  const text = value.trim()
  if (text === '') return { error: `Enter a time in UTC, e.g. ${TIME_EXAMPLE}.` }
  const m = UTC_INPUT.exec(text)
  if (m === null) {
    return /[+-]\d{2}:?\d{2}$/.test(text)
      ? { error: `Give the time in UTC (ending in Z), e.g. ${TIME_EXAMPLE}.` }
      : { error: `“${text}” is not a time like ${TIME_EXAMPLE} (year-month-day, T, hours:minutes, Z for UTC).` }
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((x) => Number(x ?? 0))
  const t = Date.UTC(year, month - 1, day, hour, minute, second)
  const d = new Date(t)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day || hour > 23 ||
    minute > 59 || second > 59) {
    return { error: `${text.slice(0, 10)} ${m[4]}:${m[5]} is not a real date and time.` }
  }
  return { iso: d.toISOString().replace('.000Z', 'Z') }
}
