// What resolving a request answers (docs/DESIGN.md §3): the (run, step), grid point and unit,
// whether it is cached, and why a run other than the newest was chosen.
import type { FetchUnit } from './adapters/index.js'
import type { RunHours } from './runs.js'

export type Quality = 'best_available' | 'immediate'

export interface SourceLogger {
  warn (msg: string): void
  info (msg: string): void
  error (msg: string): void
}

export interface ResolveRequest {
  latitude: number
  longitude: number
  time: Date
  quality: Quality
  accountId: string
}

/** The grid point a request rounds to, on the source's grid (global 0.25° for filter and noaa). */
export interface SourcePoint {
  latitude: number
  longitude: number // (-180, 180]
  i: number // column from the grid's western edge
  j: number // row from the grid's southern edge
}

export interface Resolution {
  request: ResolveRequest
  unit: FetchUnit
  unitKey: string
  run: Date
  step: number
  validTime: Date
  point: SourcePoint
  /** The unit is in the caller's decoded cache or our raw cache (no attempt needed). */
  cached: boolean
  /**
   * Why a run other than the newest for this valid time was chosen: `immediate` found it cached,
   * or the account's allowance is spent and it was cached. null: the newest run.
   */
  substitution: null | { reason: 'immediate_cached' | 'allowance_exhausted', newestRun: Date }
}

/** What the source holds, as capabilities publish it. */
export interface SourceDescription {
  kind: 'noaa' | 'mirror' | 'filter'
  status: 'ok' | 'unavailable'
  statusText: string
  /** Isobaric levels (Pa, ascending) with a full column, when known. */
  levelsPa: number[] | null
  firstValidTime: string | null
  lastValidTime: string | null
  /** The runs of the newest RUN_LIST_DAYS days holding data, newest first. */
  runs: RunHours[]
  /** `runs` lists every run the source holds. */
  runsComplete: boolean
  coverage: { latitude: { min: number, max: number }, longitude: { min: number, max: number } } | null
  grid: { di: number, dj: number, ni: number, nj: number } | null
}

