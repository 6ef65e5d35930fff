// The samples kernel's task: what one call of computeSamples reads and writes — a slice of
// planned points over loaded pieces — built in one place for the engine's calls (a plan's
// arrays) and a session's held calls (its own), and sent as it is to pool workers.
import type { LatLonGrid } from '../grib/index.js'
import type { Arrays } from './arrays.js'
import type { PieceCells } from './cells.js'
import type { SamplePiece } from './column-store.js'
import type { SampleOptions } from './points.js'

/** What the kernel reads of each point, in processing order (gathered by plan.ts). */
export interface PositionInputs {
  x: Float64Array
  y: Float64Array
  before: Int32Array
  after: Int32Array
  weight: Float64Array
  altitude: Float64Array
  ground: Float64Array
}

export interface SampleTask {
  /** The plan's grid (every piece shares its points). */
  grid: LatLonGrid
  /** Decoded pieces by index; null when the piece failed (its status in pieceStatus). */
  pieces: Array<SamplePiece | null>
  pieceStatus: Uint8Array
  /** Which piece holds a grid point of a (run, step). */
  pieceCells: PieceCells
  /** Per piece: the plan's grid point (0, 0) on the piece's own grid (a sub-region tile has its own). */
  shiftI: Int32Array
  shiftJ: Int32Array
  n: number
  /** The slice [start, end) of processing positions this call computes. */
  start: number
  end: number
  /**
   * The point computed at each processing position: a permutation within each slice that puts
   * points reading the same columns next to each other (plan.ts).
   */
  order: Int32Array
  /** Per processing position: what the kernel reads of its point (plan.ts). */
  at: PositionInputs
  agl: boolean
  /** out_of_column: nearest_level. */
  clamp: boolean
  /** The profile's rules: one column, coverage compared in the request's own reference. */
  nearest: boolean
  /** Columns join the surface layer (docs/DESIGN.md §8). */
  surfaceLayer: boolean
  /** Per point: planning sets non-ok statuses; the kernel sets the rest. */
  status: Uint8Array
  /** Per point: set to 1 where a column was clamped (out_of_column: nearest_level answered); zeroed by the caller. */
  clamped: Uint8Array
  /** OUT_COLUMNS × n, column-major, by point; NaN where a point is not ok (the caller fills it). */
  out: Float64Array
}

/** The points' side of a task: a plan's, or a session's arrays for its held calls. */
export type TaskPoints = Pick<SampleTask, 'grid' | 'pieceCells' | 'n' | 'order' | 'at' | 'status'>
/** The pieces' side: those an engine call loaded, or those a session holds. */
export type TaskPieces = Pick<SampleTask, 'pieces' | 'pieceStatus' | 'shiftI' | 'shiftJ'>

/** Position inputs for n points. */
export function positionInputs (arrays: Arrays, n: number): PositionInputs {
  return { x: arrays.float64(n), y: arrays.float64(n), before: arrays.int32(n), after: arrays.int32(n),
    weight: arrays.float64(n), altitude: arrays.float64(n), ground: arrays.float64(n) }
}

/** The task over all n points (a caller computing slices sets start and end); the options' flags said once. */
export function sampleTask (
  options: SampleOptions, points: TaskPoints, pieces: TaskPieces, clamped: Uint8Array, out: Float64Array
): SampleTask {
  return {
    grid: points.grid,
    pieces: pieces.pieces,
    pieceStatus: pieces.pieceStatus,
    pieceCells: points.pieceCells,
    shiftI: pieces.shiftI,
    shiftJ: pieces.shiftJ,
    n: points.n,
    start: 0,
    end: points.n,
    order: points.order,
    at: points.at,
    agl: options.altitudeReference === 'agl',
    clamp: options.clamp,
    nearest: options.interpolation === 'nearest',
    surfaceLayer: options.surfaceLayer === true,
    status: points.status,
    clamped,
    out
  }
}
