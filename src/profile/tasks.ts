// The work a pool worker does, as plain functions shared by both sides: the worker module
// exports them as named tasks, and the main thread can call `interpolate` directly on the same
// shared tile (ALOFT_INTERPOLATE=main). Message shapes live here once.
import { scanMessages, initGrib, GribError } from '../grib/index.js'
import { computeProfile, createColumn, fillColumn, type Column, type ProfileRequest, type ProfileResult } from '../atmosphere/index.js'
import { decodeTile, selectFields, TileError, type GridBox, type TileLayout } from './tile.js'
import { tileColumn } from './column.js'

export interface DecodeTask {
  /** The unit's GRIB2 bytes, on a SharedArrayBuffer so nothing is copied across threads. */
  bytes: Uint8Array
  /** The part of the grid to keep; the whole grid when absent. */
  box?: GridBox
  /** Reference time and step the unit must carry (the requested run and step). */
  expect?: { referenceTime: string, stepHours: number }
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
  let fields
  try {
    fields = scanMessages(task.bytes)
  } catch (err) {
    return { ok: false, detail: `not usable GRIB2: ${(err as Error).message}` }
  }
  if (fields.length === 0) return { ok: false, detail: 'no GRIB2 message in the unit' }
  if (task.expect !== undefined) {
    const { referenceTime, stepHours } = task.expect
    // Only the fields a tile takes: a filter file also holds accumulations (step 0–6 h) and such.
    const { isobaric, surface } = selectFields(fields)
    const used = surface === undefined ? [...isobaric.values()] : [surface, ...isobaric.values()]
    const wrong = used.find((f) => f.referenceTime !== referenceTime || f.stepHours !== stepHours)
    if (wrong !== undefined) {
      return { ok: false, detail: `field ${wrong.name} is for run ${wrong.referenceTime} step ${wrong.stepHours} h, not run ${referenceTime} step ${stepHours} h` }
    }
  }
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

export function interpolate (task: InterpolateTask): ProfileResult {
  const n = task.layout.levelsPa.length
  if (scratch.z_m.length < n) scratch = createColumn(n)
  const column = fillColumn(tileColumn(task.layout, task.values, task.i, task.j), scratch)
  return computeProfile(column, task.request)
}
