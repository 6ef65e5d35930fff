// The decode task a pool worker runs, as a plain function shared by both sides: the worker module
// (workers/tasks.ts) exports it as the named task `decode`. Message shapes live here once.
import { scanMessages, initGrib, GribError, type GribField } from '../grib/index.js'
import { decodeTile } from './decode.js'
import { TileError, type GridBox, type TileLayout } from './layout.js'

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

/** A no-op round trip: readiness asks it to learn that the pool's threads run tasks. */
export function ping (): boolean {
  return true
}
