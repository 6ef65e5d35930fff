// Section 6 as its own pass: packed values are decoded into the tail of the output, then spread
// forward over the points whose bit is set. Reading never falls behind writing (the k-th set bit
// is at or after point k), so this works in place with no second buffer.

/** Number of set bits among the first `n` bits. */
export function countSet (bitmap: Uint8Array, n: number): number {
  let count = 0
  const whole = n >>> 3
  for (let i = 0; i < whole; i++) {
    let v = bitmap[i]
    v = v - ((v >> 1) & 0x55); v = (v & 0x33) + ((v >> 2) & 0x33)
    count += (v + (v >> 4)) & 0x0f
  }
  for (let i = whole * 8; i < n; i++) count += (bitmap[i >>> 3] >> (7 - (i & 7))) & 1
  return count
}

/** `out` holds `coded` values in its last `coded` slots; spread them to the set points, NaN elsewhere. */
export function expand (bitmap: Uint8Array, out: Float32Array, coded: number): void {
  const n = out.length
  let from = n - coded
  for (let i = 0; i < n; i++) {
    out[i] = (bitmap[i >>> 3] >> (7 - (i & 7))) & 1 ? out[from++] : NaN
  }
}
