// What a samples call answers (docs/DESIGN.md §6): each point's status, the output columns'
// layout, and the results of an engine call and of a session's held call. The kernel writes
// them; the JSON and Arrow answers and the trajectory's air read them.
import { SAMPLE_FIELDS, type SampleField, type SampleUnit } from '../contract/index.js'
import type { DecodedUnit } from '../field/index.js'
import type { SampleOptions } from './points.js'

/** Status codes (indices of SAMPLE_STATUSES). */
export const OK = 0
export const OUTSIDE_SOURCE = 1
export const OUTSIDE_VERTICAL = 2
export const UNUSABLE = 3

/** Output columns, column-major in `out` (column c of point p at c × n + p): the fields, then these. */
export const OUT_ALTITUDE_MSL = SAMPLE_FIELDS.length
export const OUT_GROUND = SAMPLE_FIELDS.length + 1
export const OUT_COLUMNS = SAMPLE_FIELDS.length + 2

/** The output column of a field. */
export function fieldIndex (field: SampleField): number {
  return SAMPLE_FIELDS.indexOf(field)
}

export interface SamplesResult {
  n: number
  options: SampleOptions
  units: SampleUnit[]
  /** The decoded pieces read (null: failed), which `units` describes. */
  pieces: ReadonlyArray<DecodedUnit | null>
  /** Per point, SAMPLE_STATUSES index. */
  status: Uint8Array
  /** Per point: 1 where a column's nearest level answered (out_of_column: nearest_level). */
  clamped: Uint8Array
  /** OUT_COLUMNS × n, column-major; NaN where a point is not ok. */
  out: Float64Array
  /** Per point, index into `units`; −1 when the source covers not its time or not its place (planning). */
  unitBefore: Int32Array
  unitAfter: Int32Array
  timeWeight: Float64Array
}

/** What a call answered from held pieces: as in SamplesResult; read it before the session's next call. */
export interface HeldSamples {
  n: number
  status: Uint8Array
  clamped: Uint8Array
  out: Float64Array
}
