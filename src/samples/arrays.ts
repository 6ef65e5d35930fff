// Where a request's arrays live: shared memory when pool workers compute it (every thread reads
// and writes them in place), the heap when the main thread does; a large request's are carved from
// its arena (arena.ts).

export interface Arrays {
  float64: (n: number) => Float64Array
  int32: (n: number) => Int32Array
  uint8: (n: number) => Uint8Array
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

export const SHARED_ARRAYS: Arrays = { float64: sharedFloat64, int32: sharedInt32, uint8: sharedUint8 }
/** A SharedArrayBuffer costs several times an ArrayBuffer to make: small requests (a trajectory's) avoid it. */
export const LOCAL_ARRAYS: Arrays = {
  float64: (n) => new Float64Array(n),
  int32: (n) => new Int32Array(n),
  uint8: (n) => new Uint8Array(n)
}
