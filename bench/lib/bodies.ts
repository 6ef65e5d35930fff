// Profile request bodies for the benchmarks: one at a point, a fixed set of distinct ones, and a
// generator that never repeats (random point, minute and 1–8 heights inside the cached sample).
import { random } from './random.js'

/** A profile request body at a point of the sample (48–56N 13–25E, 2020-07-21 … 2020-08-29). */
export function profileBody (
  latitude = 52.23,
  longitude = 21.01,
  time = '2020-08-04T18:00:00Z',
  altitudes = [300, 1000, 3000, 10000]
): string {
  return JSON.stringify({ latitude, longitude, time, altitudes_m: altitudes, altitude_reference: 'agl' })
}

/**
 * `count` profile bodies at distinct points of the sample's area and time, 1–8 heights each
 * (300 m – 15 km AGL): the traffic of many callers, not one request repeated. Fixed by the seed.
 */
export function profileBodies (count: number, time = '2020-08-04T18:00:00Z', seed = 7): string[] {
  const next = random(seed)
  return Array.from({ length: count }, () => {
    const latitude = Math.round((48.5 + 7 * next()) * 1000) / 1000
    const longitude = Math.round((13.5 + 11 * next()) * 1000) / 1000
    const heights = new Set<number>()
    const n = 1 + Math.floor(next() * 8)
    // above the lowest model level everywhere in the area (at most ~210 m AGL there)
    while (heights.size < n) heights.add(Math.round(300 + 14_700 * next()))
    return profileBody(latitude, longitude, time, [...heights])
  })
}

/** The first valid time of the bundled 2020-08-04 12Z run; it and f006, f012 cover 12:00–24:00. */
const RUN_START_MS = Date.parse('2020-08-04T12:00:00Z')
const RUN_MINUTES = 12 * 60

/**
 * A new profile body each call: a point anywhere in the sample's area (1e-4°), a minute between
 * 12:00 and 24:00 of 2020-08-04 (answered by the three cached steps of that run) and 1–8 heights
 * of 500 m – 15 km AGL to 0.1 m. Never the same body twice in any run a benchmark makes; fixed by the seed.
 */
export function freshProfileBodies (seed: number): () => string {
  const next = random(seed)
  return () => {
    const latitude = Math.round((48.5 + 7 * next()) * 1e4) / 1e4
    const longitude = Math.round((13.5 + 11 * next()) * 1e4) / 1e4
    const time = new Date(RUN_START_MS + Math.floor(next() * RUN_MINUTES) * 60_000).toISOString()
      .replace('.000Z', 'Z')
    const heights = new Set<number>()
    const n = 1 + Math.floor(next() * 8)
    // above the lowest model level everywhere in the area (up to ~450 m AGL over the Tatras)
    while (heights.size < n) heights.add(Math.round((500 + 14_500 * next()) * 10) / 10)
    return profileBody(latitude, longitude, time, [...heights])
  }
}
