// Loading a plan's decoded pieces through the field room: each unit fetched once (shared with
// concurrent requests, or held by a session), a piece the source no longer holds or cannot use
// made its points' status, and where each piece's own grid lies on the plan's.
import { UnusableUnitError, decodedKey, gridX, gridY, pieceBox, type DecodedUnit, type Field } from '../field/index.js'
import type { LatLonGrid } from '../grib/index.js'
import { SourceError } from '../source/index.js'
import type { Plan } from './plan.js'
import { OUTSIDE_SOURCE, UNUSABLE } from './result.js'

export interface LoadedPlan {
  plan: Plan
  pieces: Array<DecodedUnit | null>
  pieceStatus: Uint8Array
  /** Per piece: the plan's grid point (0, 0) on the piece's own grid. */
  shiftI: Int32Array
  shiftJ: Int32Array
}

/**
 * Loads every planned piece; `held`, a session's pieces, answers those it has and keeps those
 * loaded. Anything but a piece's own failure (the source busy, the allowance gone meanwhile, the
 * store down) fails the request once every load has settled.
 */
export async function loadPlan (
  field: Field, plan: Plan, accountId: string, deadline: number, held?: Map<string, DecodedUnit>
): Promise<LoadedPlan> {
  const settled = await Promise.allSettled(plan.pieces.map(async (piece) => {
    if (held === undefined) return await field.loadPiece(piece.unit, piece.point, accountId, deadline)
    const key = decodedKey(piece.unit.key, pieceBox(piece.unit, piece.point))
    const kept = held.get(key)
    if (kept !== undefined) return { unit: kept, hit: true }
    const loaded = await field.loadPiece(piece.unit, piece.point, accountId, deadline)
    held.set(key, loaded.unit)
    return loaded
  }))
  const pieces: Array<DecodedUnit | null> = []
  const { arrays } = plan
  const pieceStatus = arrays.uint8(plan.pieces.length)
  // a sub-region tile has its own grid: where the plan's grid point (0, 0) falls on it
  const shiftI = arrays.int32(plan.pieces.length)
  const shiftJ = arrays.int32(plan.pieces.length)
  let fatal: unknown = null
  settled.forEach((s, k) => {
    pieces.push(null)
    if (s.status === 'fulfilled') {
      const shift = gridShift(plan.grid, s.value.unit.layout.grid)
      if (shift === null) {
        pieceStatus[k] = UNUSABLE
      } else {
        pieces[k] = s.value.unit
        shiftI[k] = shift.i
        shiftJ[k] = shift.j
      }
    } else if (s.reason instanceof SourceError && s.reason.code === 'outside_source_coverage') {
      pieceStatus[k] = OUTSIDE_SOURCE
    } else if (s.reason instanceof UnusableUnitError) {
      pieceStatus[k] = UNUSABLE
    } else {
      fatal ??= s.reason
    }
  })
  if (fatal !== null) throw fatal
  return { plan, pieces, pieceStatus, shiftI, shiftJ }
}

/**
 * Where the plan's grid point (0, 0) lies on a piece's grid, in whole grid steps (the piece's
 * column 0 is the plan's column i); null when the two grids do not share their points.
 */
function gridShift (plan: LatLonGrid, piece: LatLonGrid): { i: number, j: number } | null {
  if (piece.di !== plan.di || piece.dj !== plan.dj) return null
  const x = gridX(plan, piece.west)
  const y = gridY(plan, piece.south)
  const i = Math.round(x)
  const j = Math.round(y)
  if (Math.abs(x - i) > 1e-6 || Math.abs(y - j) > 1e-6) return null
  return { i: plan.global && i >= plan.ni ? i - plan.ni : i, j }
}
