// bench/crossing-worker: the piscina worker of bench/crossing. The real `interpolate` task (tile
// on a SharedArrayBuffer), an interpolation from a column handed over on its own, an empty task
// (the thread hop alone) and a task answering a decoded-size block in each of three ways.
import { Piscina } from 'piscina'
import {
  computeProfile, createColumn, fillColumn, type LevelSeries, type ProfileRequest, type ProfileResult
} from '../../src/atmosphere/index.js'
export { interpolate } from '../../src/profile/task.js'

/** One grid point's column, packed: [surface HGT, then per level HGT, TMP, UGRD, VGRD, SPFH, RH]. */
export interface PackedColumn { levelsPa: number[], values: Float32Array, request: ProfileRequest }

const VARS = 6

export function column (task: PackedColumn): ProfileResult {
  const n = task.levelsPa.length
  const series = (v: number): LevelSeries => ({ data: task.values, offset: 1 + v, stride: VARS })
  const source = {
    level_count: n,
    surface_hgt_gpm: task.values[0],
    pressure_pa: { data: task.levelsPa, offset: 0, stride: 1 },
    hgt_gpm: series(0),
    tmp_k: series(1),
    ugrd_ms: series(2),
    vgrd_ms: series(3),
    spfh_kg_kg: series(4),
    rh_pct: series(5)
  }
  return computeProfile(fillColumn(source, createColumn(n)), task.request)
}

export function noop (): number {
  return 0
}

/** A block of `length` float32 values answered on a SharedArrayBuffer, as a transfer, or copied. */
export function block (task: { length: number, how: 'shared' | 'transfer' | 'copy' }): unknown {
  const values = task.how === 'shared'
    ? new Float32Array(new SharedArrayBuffer(task.length * 4))
    : new Float32Array(task.length)
  values[0] = 1
  values[task.length - 1] = 2
  return task.how === 'transfer' ? Piscina.move(values) : values
}
