// The work a pool worker does, as plain functions shared by both sides: the worker module
// exports them as named tasks, and the main thread can call `interpolate` directly on the same
// shared tile (ALOFT_INTERPOLATE=main). Message shapes live here once.
import { scanMessages, initGrib, GribError, type GribField } from '../grib/index.js'
import { computeProfile, createColumn, fillColumn, type Column, type ProfileRequest, type ProfileResult } from '../atmosphere/index.js'
import { decodeTile, TileError, type GridBox, type TileLayout } from './tile.js'
import { tileColumn } from './column.js'

export interface DecodeTask {
  /** The unit's GRIB2 bytes, on a SharedArrayBuffer so nothing is copied across threads. */
  bytes: Uint8Array
  /** The part of the grid to keep; the whole grid when absent. */
  box?: GridBox
  /** The unit's index, when the caller already scanned it (the source does, to verify the unit). */
  fields?: GribField[]
}

export interface DecodedTile {
  ok: true
  layout: TileLayout
  /** On a SharedArrayBuffer: shared with every thread, never copied. */
  values: Float32Array
  fieldCount: number
}

export interface InterpolateTask {
  layout: TileLayout
  values: Float32Array
  i: number
  j: number
  request: ProfileRequest
}

/**
 * A unit that cannot make columns (not GRIB2, wrong time, missing variables) is an answer, not
 * an exception: error classes do not survive the thread boundary, a tagged result does.
 */
export interface UnusableUnit { ok: false, detail: string }

export type DecodeResult = DecodedTile | UnusableUnit

let ready: Promise<void> | undefined

export async function decode (task: DecodeTask): Promise<DecodeResult> {
  ready ??= initGrib()
  await ready
  let fields = task.fields
  if (fields === undefined) {
    try {
      fields = scanMessages(task.bytes)
    } catch (err) {
      return { ok: false, detail: `not usable GRIB2: ${(err as Error).message}` }
    }
  }
  if (fields.length === 0) return { ok: false, detail: 'no GRIB2 message in the unit' }
  try {
    const { layout, values } = decodeTile(task.bytes, fields, task.box)
    return { ok: true, layout, values, fieldCount: fields.length }
  } catch (err) {
    if (err instanceof TileError || err instanceof GribError) return { ok: false, detail: err.message }
    throw err
  }
}

// One column reused by every call on this thread: interpolation allocates only its output.
let scratch: Column = createColumn(64)

/** The filled column at (i, j) of a tile, in arrays of its own (so it can be kept and reused). */
export function columnOf (layout: TileLayout, values: Float32Array, i: number, j: number): Column {
  return fillColumn(tileColumn(layout, values, i, j), createColumn(layout.levelsPa.length))
}

export function interpolate (task: InterpolateTask): ProfileResult {
  const n = task.layout.levelsPa.length
  if (scratch.z_m.length < n) scratch = createColumn(n)
  const column = fillColumn(tileColumn(task.layout, task.values, task.i, task.j), scratch)
  return computeProfile(column, task.request)
}
