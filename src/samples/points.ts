// A bulk samples request as typed arrays: what the planner and the kernel read, whichever
// encoding (JSON or Arrow) it arrived in.
import type { SampleField, Interpolation } from '../contract/index.js'

export interface SamplePoints {
  n: number
  latitude: Float64Array
  longitude: Float64Array
  altitude: Float64Array
  /** Epoch milliseconds per point. */
  time: Float64Array
  /** The caller's ground per point (m MSL); NaN: the model terrain. */
  ground: Float64Array
}

export interface SampleOptions {
  interpolation: Interpolation
  altitudeReference: 'agl' | 'msl'
  /** out_of_column: nearest_level. */
  clamp: boolean
  fields: SampleField[]
  /** Only this model run (epoch ms) answers: a pinned dataset (the trajectory's `dataset`). */
  run?: number
  /** Columns join the surface layer (docs/DESIGN.md §8). */
  surfaceLayer?: boolean
}
