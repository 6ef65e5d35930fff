// The runs a source holds, compactly: each run with its forecast hours as arithmetic ranges, so
// NOAA's 209 steps a run (hourly to 120 h, then 3-hourly to 384 h) are two ranges, and a sparse
// mirror's runs a few numbers each. Capabilities publish these; the demo prints the valid times.
import { validTime, type RunStep } from './gfs.js'
import { rfc3339 } from '../contract/index.js'

/** Forecast hours first, first + every, …, last. */
export interface HourRange { first: number, last: number, every: number }

export interface RunHours {
  /** The run (cycle) time, RFC 3339. */
  run: string
  forecast_hours: HourRange[]
}

/** Ascending distinct hours as ranges, each taken as long as the step between hours stays the same. */
export function hourRanges (hours: readonly number[]): HourRange[] {
  const sorted = [...new Set(hours)].sort((a, b) => a - b)
  const out: HourRange[] = []
  let k = 0
  while (k < sorted.length) {
    const first = sorted[k]
    if (k + 1 === sorted.length) {
      out.push({ first, last: first, every: 1 })
      break
    }
    const every = sorted[k + 1] - first
    let end = k + 1
    while (end + 1 < sorted.length && sorted[end + 1] - sorted[end] === every) end++
    out.push({ first, last: sorted[end], every })
    k = end + 1
  }
  return out
}

/** The hours a range stands for. */
export function rangeHours (r: HourRange): number[] {
  const out: number[] = []
  for (let h = r.first; h <= r.last; h += r.every) out.push(h)
  return out
}

/** Listed (run, step) pairs as runs, newest first. */
export function runsOf (entries: readonly RunStep[]): RunHours[] {
  const byRun = new Map<number, number[]>()
  for (const e of entries) byRun.set(e.run, [...(byRun.get(e.run) ?? []), e.step])
  return [...byRun].sort((a, b) => b[0] - a[0]).map(([run, steps]) => ({
    run: rfc3339(run), forecast_hours: hourRanges(steps)
  }))
}

/** Every valid time the runs reach, ascending, once each. */
export function validTimesOf (runs: readonly RunHours[]): string[] {
  const times = new Set<number>()
  for (const r of runs) {
    const run = Date.parse(r.run)
    for (const range of r.forecast_hours) for (const h of rangeHours(range)) times.add(validTime({ run, step: h }))
  }
  return [...times].sort((a, b) => a - b).map(rfc3339)
}
