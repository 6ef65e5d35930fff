// What the solver asks of the air: one batched evaluation of many states at once. The samples
// engine answers it in the service (air.ts), synthetic winds in the tests.

/** What an evaluation of the air answered for one state. */
export const AIR_OK = 0
/** The state lies outside the source's coverage (place or time). */
export const AIR_OUTSIDE = 1
/** The source's column there cannot be used. */
export const AIR_UNUSABLE = 2

/** One batched evaluation: inputs t … alt for `n` states, the outputs filled by the Air. */
export interface AirBatch {
  n: number
  /** Seconds since the epoch. */
  t: Float64Array
  latitude: Float64Array
  /** [0, 360). */
  longitude: Float64Array
  /** Metres, geometric, above mean sea level. */
  altitude: Float64Array
  u: Float64Array
  v: Float64Array
  /** The model terrain (m MSL), bilinear and time-blended. */
  ground: Float64Array
  density: Float64Array
  status: Uint8Array
  /** 1 where the altitude lay outside the column and its nearest level answered. */
  clamped: Uint8Array
}

export type Air = (batch: AirBatch) => void | Promise<void>

/** A batch with room for `n` states (none filled). */
export function airBatch (n: number): AirBatch {
  return {
    n: 0,
    t: new Float64Array(n),
    latitude: new Float64Array(n),
    longitude: new Float64Array(n),
    altitude: new Float64Array(n),
    u: new Float64Array(n),
    v: new Float64Array(n),
    ground: new Float64Array(n),
    density: new Float64Array(n),
    status: new Uint8Array(n),
    clamped: new Uint8Array(n)
  }
}
