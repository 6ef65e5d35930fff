// The distinct instants of a request's times: the plan chooses units in time once per instant,
// not once per point (a flight's batch, or a bulk request at one time, has few).

/**
 * The distinct instants of `time` (in the order first met) and each point's index into them, by
 * open addressing over the float64 bits in typed arrays (a Map of 100 000 numbers costs several
 * times more).
 */
export function distinctInstants (time: Float64Array, n: number): { instants: Float64Array, pointInstant: Int32Array } {
  let size = 8
  while (size < 2 * n) size *= 2
  const mask = size - 1
  const table = new Int32Array(size).fill(-1)
  const seen = new Float64Array(n)
  const pointInstant = new Int32Array(n)
  const bits = new Float64Array(1)
  const words = new Int32Array(bits.buffer)
  let count = 0
  for (let p = 0; p < n; p++) {
    const t = time[p]
    bits[0] = t
    let h = (Math.imul(words[0], 0x9e3779b1) ^ Math.imul(words[1], 0x85ebca77)) >>> 0
    h = (h ^ (h >>> 15)) & mask
    for (;;) {
      const k = table[h]
      if (k < 0) {
        table[h] = count
        seen[count] = t
        pointInstant[p] = count++
        break
      }
      if (seen[k] === t) {
        pointInstant[p] = k
        break
      }
      h = (h + 1) & mask
    }
  }
  return { instants: seen.subarray(0, count), pointInstant }
}
