// The samples worker task: one slice of points over shared tiles and shared output arrays. The
// worker module exports it as the named task `samples`.
import { move } from 'piscina'
import { computeSamples } from './kernel.js'
import type { SampleTask } from './kernel-task.js'
import { numberBytes, numberBytesInto } from './json/index.js'
import { heldShared } from '../memory.js'

export function samples (task: SampleTask): null {
  computeSamples(task)
  // the request's arrays (its arena): what this thread holds of them goes once it collects
  heldShared(task.out.buffer)
  return null
}

/**
 * The task `samplesJsonColumn`: one column of numbers as the bytes of its JSON array, written into
 * `out` (shared memory of the request: the length comes back) or, without it, moved (not copied) back.
 */
export function samplesJsonColumn (task: { values: Float64Array, out?: Uint8Array }): Uint8Array | number {
  heldShared(task.values.buffer)
  if (task.out !== undefined) return numberBytesInto(task.values, task.out)
  return move(numberBytes(task.values)) as Uint8Array
}
