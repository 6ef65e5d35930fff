// The profile's worker task (ALOFT_INTERPOLATE=worker): interpolate one grid point's column of a
// shared tile. The worker module exports it as the named task `interpolate`; the main thread
// reads the same tile through the field room's column memo instead.
import {
  computeProfile, createColumn, fillColumn, type Column, type ProfileRequest, type ProfileResult
} from '../atmosphere/index.js'
import { columnCapacity, tileColumn, type TileLayout, type WorkerPool } from '../field/index.js'

export interface InterpolateTask {
  layout: TileLayout
  values: Float32Array
  i: number
  j: number
  request: ProfileRequest
  /** Join the surface layer (docs/DESIGN.md §8). */
  surfaceLayer?: boolean
}

// One column reused by every call on this thread: interpolation allocates only its output.
let scratch: Column = createColumn(64)

export function interpolate (task: InterpolateTask): ProfileResult {
  const n = columnCapacity(task.layout, task.surfaceLayer === true)
  if (scratch.z_m.length < n) scratch = createColumn(n)
  const column = fillColumn(tileColumn(task.layout, task.values, task.i, task.j), scratch, task.surfaceLayer === true)
  return computeProfile(column, task.request)
}

/** Runs `interpolate` on a pool worker. */
export async function interpolateInWorker (pool: WorkerPool, task: InterpolateTask): Promise<ProfileResult> {
  return await pool.run<ProfileResult>('interpolate', task)
}
