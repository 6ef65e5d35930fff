// A load run's measurements, request by request, summarised as its LoadResult: latency over all,
// by kind, and per time window (the Node clients and the C client read alike).
import type { LoadResult, LoadSpec, WindowStats } from './load-spec.js'
import { percentile, summarize, type Summary } from './stats.js'

/** What a run measured, request by request (parallel arrays), before it is summarised. */
export interface Measured {
  spec: LoadSpec
  kindNames: string[]
  /** ms from the start of the measured period to when each request was due */
  starts: number[]
  latencies: number[]
  kinds: number[]
  failed: number[]
  outcomes: Record<string, number>
  sent: number
  elapsedMs: number
  schedulerLagMs: number
  unfinished: number
}

export function resultOf (m: Measured): LoadResult {
  const { spec, kindNames, starts, latencies, kinds, failed, elapsedMs: elapsed } = m
  const measureMs = spec.seconds * 1000
  const byKind: Record<string, Summary> = {}
  for (let k = 0; k < kindNames.length; k++) {
    const kind = kindNames[k]
    if (byKind[kind] !== undefined) continue
    const same = new Set(kindNames.map((name, i) => name === kind ? i : -1).filter((i) => i >= 0))
    byKind[kind] = summarize(latencies.filter((_, i) => same.has(kinds[i])))
  }
  const windowMs = (spec.windowSeconds ?? 10) * 1000
  const windows: WindowStats[] = []
  for (let w = 0; w * windowMs < measureMs; w++) {
    const lat: number[] = []
    let errors = 0
    for (let i = 0; i < starts.length; i++) {
      if (starts[i] >= w * windowMs && starts[i] < (w + 1) * windowMs) { lat.push(latencies[i]); errors += failed[i] }
    }
    const s = Float64Array.from(lat).sort()
    const width = Math.min(windowMs, measureMs - w * windowMs) / 1000
    windows.push({
      startS: w * windowMs / 1000,
      count: s.length,
      rps: s.length / width,
      p50: percentile(s, 50),
      p99: percentile(s, 99),
      max: s.length > 0 ? s[s.length - 1] : NaN,
      errors
    })
  }
  return {
    mode: spec.mode,
    connections: spec.connections,
    rate: spec.rate ?? null,
    seconds: elapsed / 1000,
    sent: m.sent,
    completed: latencies.length,
    rps: latencies.length / (elapsed / 1000),
    latencyMs: summarize(latencies),
    byKind,
    outcomes: m.outcomes,
    windows,
    schedulerLagMs: m.schedulerLagMs,
    unfinished: m.unfinished
  }
}
