// The samples worker task: one slice of points over shared tiles and shared output arrays. The
// worker module exports it as the named task `samples`.
import { move } from 'piscina'
import { computeSamples, type SampleTask } from './kernel.js'
import { numberBytes } from './json.js'

export function samples (task: SampleTask): null {
  computeSamples(task)
  return null
}

/** The task `samplesJsonColumn`: one column of numbers as the bytes of its JSON array, moved (not copied) back. */
export function samplesJsonColumn (values: Float64Array): Uint8Array {
  return move(numberBytes(values)) as Uint8Array
}
