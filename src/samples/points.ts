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

/** Where a request's arrays live: shared memory when pool workers compute it, the heap when the main thread does. */
export interface Arrays {
  float64: (n: number) => Float64Array
  int32: (n: number) => Int32Array
  uint8: (n: number) => Uint8Array
}

export const SHARED_ARRAYS: Arrays = { float64: sharedFloat64, int32: sharedInt32, uint8: sharedUint8 }
/** A SharedArrayBuffer costs several times an ArrayBuffer to make: small requests (a trajectory's) avoid it. */
export const LOCAL_ARRAYS: Arrays = {
  float64: (n) => new Float64Array(n),
  int32: (n) => new Int32Array(n),
  uint8: (n) => new Uint8Array(n)
}
