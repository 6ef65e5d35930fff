// The one way aloft writes an instant: RFC 3339 UTC, milliseconds only when the instant has some
// (2020-08-04T18:00:00Z, 2020-08-04T18:00:00.250Z).

/** `ms` (epoch milliseconds, a whole number) as RFC 3339 UTC. */
export function rfc3339 (ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z')
}

// A fresh profile formats a few instants that repeat (runs, valid times, the times callers ask
// for): remembered, up to a bound, rather than formatted each time.
const KEPT_LIMIT = 4096
const kept = new Map<number, string>()

/** rfc3339, remembered: for the few instants that recur across answers (never per trajectory point). */
export function rfc3339Kept (ms: number): string {
  let text = kept.get(ms)
  if (text === undefined) {
    text = rfc3339(ms)
    if (kept.size >= KEPT_LIMIT) kept.clear()
    kept.set(ms, text)
  }
  return text
}
