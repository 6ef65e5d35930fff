// The whole hours a request's times fall in: the catalog is read per hour (the source's
// entriesNear), and a session holds the entries it read under the key of their hours, which its
// held calls make again from their points' times — so both go through these functions.
import { HOUR_MS } from '../source/index.js'

/** The whole hour an instant (epoch ms) falls in, counted in hours since the epoch. */
function hourNumber (t: number): number {
  return Math.floor(t / HOUR_MS)
}

/** The whole hour an instant (epoch ms) falls in, as its epoch ms. */
export function wholeHourOf (t: number): number {
  return hourNumber(t) * HOUR_MS
}

/**
 * The whole hours of times[0 … n), each once, in the order first met: counted in hours (small
 * integers, which a Set hashes several times faster than the epoch milliseconds) and skipping a
 * repeat of the last.
 */
export function distinctHoursOf (times: Float64Array, n = times.length): number[] {
  const hours = new Set<number>()
  let last = NaN
  for (let k = 0; k < n; k++) {
    const h = hourNumber(times[k])
    if (h === last) continue
    hours.add(h)
    last = h
  }
  return Array.from(hours, (h) => h * HOUR_MS)
}

/** The key of the catalog entries read for these hours (distinctHoursOf's list). */
export function hoursKey (hours: readonly number[]): string {
  return hours.join(',')
}
