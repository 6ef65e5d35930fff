// The processing order of a samples request: within each slice, points sorted by a key naming
// the columns they read (plan.ts), by a stable two-pass radix sort — linear in the points, where
// a comparison sort of 100 000 keys costs several times more.

/** Most points in one slice: the Arrow record batch bound, and the unit of work of a worker. */
export const SLICE_POINTS = 65_536

const counts = new Int32Array(1 << 16)
/** Below this many points an insertion sort beats clearing 2 × 65 536 counters (a trajectory's batches). */
const INSERTION_POINTS = 256
let spare = new Int32Array(0)

/** order[start … end) = start … end − 1 sorted by keys[p], stably. */
export function sortByKey (keys: Uint32Array, start: number, end: number, order: Int32Array): void {
  const width = end - start
  if (width <= INSERTION_POINTS) {
    insertionSort(keys, start, end, order)
    return
  }
  if (spare.length < width) spare = new Int32Array(width)
  let high = 0
  for (let p = start; p < end; p++) high |= keys[p] >>> 16
  // low 16 bits into `spare` (or straight into `order` when the high bits are all 0)
  const first = high === 0 ? order : spare
  const firstAt = high === 0 ? start : 0
  counts.fill(0)
  for (let p = start; p < end; p++) counts[keys[p] & 0xffff]++
  let sum = 0
  for (let k = 0; k < counts.length; k++) { const c = counts[k]; counts[k] = sum; sum += c }
  for (let p = start; p < end; p++) first[firstAt + counts[keys[p] & 0xffff]++] = p
  if (high === 0) return
  counts.fill(0)
  for (let r = 0; r < width; r++) counts[keys[spare[r]] >>> 16]++
  sum = 0
  for (let k = 0; k < counts.length; k++) { const c = counts[k]; counts[k] = sum; sum += c }
  for (let r = 0; r < width; r++) { const p = spare[r]; order[start + counts[keys[p] >>> 16]++] = p }
}

function insertionSort (keys: Uint32Array, start: number, end: number, order: Int32Array): void {
  for (let p = start; p < end; p++) {
    const key = keys[p]
    let r = p
    // stable: a point moves only past greater keys
    while (r > start && keys[order[r - 1]] > key) {
      order[r] = order[r - 1]
      r--
    }
    order[r] = p
  }
}
