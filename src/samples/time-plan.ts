// Which model units answer a requested instant (docs/DESIGN.md §6). `linear`: the newest run having
// two consecutive steps with valid times v0 < t < v1, v1 − v0 ≤ 2 × the time offset, weight
// (t − v0)/(v1 − v0) on v1; an instant equal to a valid time is that unit alone (newest run, weight
// 0); else the nearest rule. `nearest`: the nearest valid time within the offset (a tie goes to the
// later one), newest run for it — the profile route's rule (§3).
import { nearestValidIndex, upperBound, validTime, type HeldRunStep } from '../source/index.js'

export interface TimeChoice {
  before: HeldRunStep
  /** The same entry as `before` when one unit answers. */
  after: HeldRunStep
  /** Weight of `after`, in [0, 1). */
  weight: number
}

interface Run {
  run: number
  /** The valid times of the run's entries, ascending, and those entries' ordinals. */
  valid: number[]
  ordinals: number[]
}

/** A choice as entry ordinals (TimeIndex.entries), written in place: planning allocates nothing per instant. */
export interface ChoiceSlot {
  before: number
  /** The same ordinal as `before` when one unit answers. */
  after: number
  /** Weight of `after`, in [0, 1). */
  weight: number
}

/** The catalog's entries around a request's instants, indexed for the two rules. */
export class TimeIndex {
  /** Every entry once (one object per (run, step)), by ordinal. */
  readonly entries: HeldRunStep[] = []
  /** Runs, newest first. */
  readonly #runs: Run[]
  /** Distinct valid times ascending, and the ordinal of the newest run's entry for each. */
  readonly #valid: number[]
  readonly #newest: number[]
  readonly #slot: ChoiceSlot = { before: -1, after: -1, weight: 0 }

  constructor (entries: readonly HeldRunStep[], readonly maxOffsetMs: number) {
    const byRun = new Map<number, Map<number, HeldRunStep>>()
    const newestByValid = new Map<number, HeldRunStep>()
    for (const e of entries) {
      let steps = byRun.get(e.run)
      if (steps === undefined) byRun.set(e.run, steps = new Map())
      // one object per (run, step): choices are told apart by identity
      if (steps.has(e.step)) continue
      steps.set(e.step, e)
      const v = validTime(e)
      const seen = newestByValid.get(v)
      if (seen === undefined || e.run > seen.run) newestByValid.set(v, e)
    }
    const ordinal = new Map<HeldRunStep, number>()
    this.#runs = [...byRun].sort((a, b) => b[0] - a[0]).map(([run, steps]) => {
      const sorted = [...steps.values()].sort((a, b) => a.step - b.step)
      const ordinals = sorted.map((e) => {
        ordinal.set(e, this.entries.length)
        return this.entries.push(e) - 1
      })
      return { run, valid: sorted.map(validTime), ordinals }
    })
    this.#valid = [...newestByValid.keys()].sort((a, b) => a - b)
    this.#newest = this.#valid.map((v) => ordinal.get(newestByValid.get(v) as HeldRunStep) as number)
  }

  /** The `nearest` rule; null when no valid time lies within the offset. */
  nearest (t: number): TimeChoice | null {
    return this.#choice(this.nearestInto(t, this.#slot))
  }

  /** The `linear` rule; null when neither a bracket nor a valid time within the offset exists. */
  linear (t: number): TimeChoice | null {
    return this.#choice(this.linearInto(t, this.#slot))
  }

  #choice (found: boolean): TimeChoice | null {
    if (!found) return null
    const s = this.#slot
    return { before: this.entries[s.before], after: this.entries[s.after], weight: s.weight }
  }

  /** The `nearest` rule into `out`; false when no valid time lies within the offset. */
  nearestInto (t: number, out: ChoiceSlot): boolean {
    const best = nearestValidIndex(this.#valid, t, this.maxOffsetMs)
    if (best < 0) return false
    out.before = out.after = this.#newest[best]
    out.weight = 0
    return true
  }

  /** The `linear` rule into `out`; false when neither a bracket nor a valid time within the offset exists. */
  linearInto (t: number, out: ChoiceSlot): boolean {
    const k = upperBound(this.#valid, t)
    if (k > 0 && this.#valid[k - 1] === t) {
      out.before = out.after = this.#newest[k - 1]
      out.weight = 0
      return true
    }
    for (const r of this.#runs) {
      if (r.run >= t) continue // its steps are all at or after t
      const i = upperBound(r.valid, t)
      if (i === 0 || i === r.valid.length) continue
      const v0 = r.valid[i - 1]
      const v1 = r.valid[i]
      if (v1 - v0 <= 2 * this.maxOffsetMs) {
        out.before = r.ordinals[i - 1]
        out.after = r.ordinals[i]
        out.weight = (t - v0) / (v1 - v0)
        return true
      }
    }
    return this.nearestInto(t, out)
  }
}

const indexes = new WeakMap<readonly HeldRunStep[], Map<string, TimeIndex>>()

/**
 * The index of a list of catalog entries (only run `run`'s when pinned), kept as long as the list
 * is: a caller handing the same list again (a flight's session) does not rebuild it.
 */
export function timeIndexFor (
  entries: readonly HeldRunStep[], run: number | undefined, maxOffsetMs: number
): TimeIndex {
  let byOption = indexes.get(entries)
  if (byOption === undefined) indexes.set(entries, byOption = new Map())
  const key = `${run ?? ''}/${maxOffsetMs}`
  let index = byOption.get(key)
  if (index === undefined) {
    index = new TimeIndex(run === undefined ? entries : entries.filter((e) => e.run === run), maxOffsetMs)
    byOption.set(key, index)
  }
  return index
}
