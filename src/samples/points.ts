// A bulk samples request as typed arrays: what the planner and the kernel read, whichever
// encoding (JSON or Arrow) it arrived in.
import type { SampleField, Interpolation } from '../contract/samples.js'

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
}

/** A Float64Array over shared memory, so pool workers read and write it in place. */
export function sharedFloat64 (n: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(n * Float64Array.BYTES_PER_ELEMENT))
}

export function sharedInt32 (n: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(n * Int32Array.BYTES_PER_ELEMENT))
}

export function sharedUint8 (n: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(n))
}
