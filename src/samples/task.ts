// The samples worker task: one slice of points over shared tiles and shared output arrays. The
// worker module exports it as the named task `samples`.
import { computeSamples, type SampleTask } from './kernel.js'

export function samples (task: SampleTask): null {
  computeSamples(task)
  return null
}

/** The task `samplesJsonColumn`: one column of numbers as its JSON array text. */
export { numbers as samplesJsonColumn } from './json.js'
