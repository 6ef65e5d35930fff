// A yardstick for a test that says "at once": how long an ordinary operation of the same kind takes
// on this machine, now, measured right beside the one judged — so a machine that is busy or slow
// stretches both alike, and the bound means "no more work than that", not "this fast". What an "at
// once" test guards against (walking two billion batches, listing a million errors, flying a month)
// costs seconds to minutes more than any multiple of the yardstick the tests allow.

/** The median time (ms) of `rounds` runs of `reference`, after one run that warms it up. */
export { medianMs as yardstick } from '../../bench/lib/stats.js'

/**
 * A bound of `times` yardsticks, plus room for one scheduling hiccup of a shared machine (a process
 * descheduled, a collection) that a single measurement can meet and a median does not.
 */
export function yardsticks (times: number, yardstickMs: number): number {
  return times * yardstickMs + HICCUP_MS
}

/** The longest pause one measurement on a busy two-core machine was seen to take that its neighbours did not. */
export const HICCUP_MS = 250
