// The samples kernel (docs/DESIGN.md §6): for a slice of planned points, read each weighted
// column straight out of the decoded tiles, interpolate it at the point's height and blend.
// Pure and allocation-free per point (mapbox/pbf style: plain loops over typed arrays), so the
// same function runs on the main thread or on a pool worker over the same shared arrays.
import {
  AT_LNP, AT_P, AT_Q, AT_T, AT_U, AT_V, columnValuesAt, createColumn, fillColumn, moistAirDensity,
  relativeHumidityLiquid, windDirectionFrom, windSpeed, type Column
} from '../atmosphere/index.js'
import { planeOffset, tileColumn, type TileLayout } from '../field/index.js'
import { SAMPLE_FIELDS } from '../contract/samples.js'

/** Column slots per point: two units in time × four bilinear corners. */
export const SLOTS = 8

/** Status codes (indices of SAMPLE_STATUSES). */
export const OK = 0
export const OUTSIDE_SOURCE = 1
export const OUTSIDE_VERTICAL = 2
export const UNUSABLE = 3

/** Output columns, column-major in `out` (column c of point p at c × n + p): the fields, then these. */
export const OUT_ALTITUDE_MSL = SAMPLE_FIELDS.length
export const OUT_GROUND = SAMPLE_FIELDS.length + 1
export const OUT_COLUMNS = SAMPLE_FIELDS.length + 2

/** A decoded piece of a unit, read in place. */
export interface SamplePiece {
  /** Names the decoded bytes (unit, block, sha256): filled columns are kept under it across calls. */
  key: string
  layout: TileLayout
  values: Float32Array
}

export interface SampleTask {
  /** Decoded pieces by index; null when the piece failed (its status in pieceStatus). */
  pieces: Array<SamplePiece | null>
  pieceStatus: Uint8Array
  n: number
  /** The slice of points [start, end) this call computes. */
  start: number
  end: number
  altitude: Float64Array
  /** The caller's ground per point (m MSL); NaN: the model terrain. */
  ground: Float64Array
  agl: boolean
  /** out_of_column: nearest_level. */
  clamp: boolean
  /** The profile's rules: one column, coverage compared in the request's own reference. */
  nearest: boolean
  /** Per point × SLOTS: piece index (−1: no column), grid column and row, weight (space × time). */
  slotPiece: Int32Array
  slotI: Int32Array
  slotJ: Int32Array
  slotW: Float64Array
  /** Per point: planning sets non-ok statuses; the kernel sets the rest. */
  status: Uint8Array
  out: Float64Array
}

/** Grid points of a piece below 2^21 (j × 2048 + i); points of a slice below 2^17 (SLICE_POINTS is 2^16). */
const GRID_KEY = 1 << 21
const SLICE_SPAN = 1 << 17
/** (pieces + 1) × 2^22 × 2^17 < 2^53. */
const ORDERED_PIECES = (1 << 13) - 1

/**
 * The slice's points ordered by their first column (piece, row, column): consecutive points then
 * read the same few columns while they are in the processor's cache, instead of eight random
 * columns each (the kernel's cost on random points is mostly cache misses). Returns sort keys
 * whose remainder modulo SLICE_SPAN is the point's offset in the slice.
 */
function localityOrder (task: SampleTask): Float64Array {
  const { start, end, slotPiece, slotI, slotJ } = task
  const order = new Float64Array(end - start)
  // keys stay exact below 2^53 only for fewer pieces than this: beyond, the points keep their order
  const ordered = task.pieces.length < ORDERED_PIECES
  for (let p = start; p < end; p++) {
    const s = p * SLOTS
    const cell = !ordered || slotPiece[s] < 0 ? 0 : (slotPiece[s] + 1) * GRID_KEY * 2 + slotJ[s] * 2048 + slotI[s]
    order[p - start] = cell * SLICE_SPAN + (p - start)
  }
  return order.sort()
}

/**
 * Filled columns kept by this thread across calls, per decoded piece at the grid point's offset in
 * it: filling a column (heights, and q from RH for GFS v15) costs more than interpolating it many
 * times, and requests come back to the same pieces. Bounded in columns (about 3 KB each) and in
 * pieces (each holds a slot per grid point of its tile); past either bound everything kept is dropped.
 */
const KEPT_COLUMNS = 16_384
const KEPT_PIECES = 256
const kept = new Map<string, Array<Column | undefined>>()
let keptCount = 0

function keptFor (piece: SamplePiece): Array<Column | undefined> {
  let columns = kept.get(piece.key)
  if (columns === undefined) {
    if (kept.size >= KEPT_PIECES) {
      kept.clear()
      keptCount = 0
    }
    columns = new Array<Column | undefined>(piece.layout.box.ni * piece.layout.box.nj)
    kept.set(piece.key, columns)
  }
  return columns
}

const at = new Float64Array(6)

export function computeSamples (task: SampleTask): void {
  const { pieces, pieceStatus, n, altitude, ground, agl, clamp, nearest, slotPiece, slotI, slotJ, slotW, status, out } =
    task
  const columnsOf = pieces.map((piece) => piece === null ? null : keptFor(piece))
  const columns: Array<Column | null> = new Array(SLOTS).fill(null)
  const column = (s: number): Column | null => {
    const piece = pieces[slotPiece[s]]
    if (piece === null) return null
    const offset = planeOffset(piece.layout, slotI[s], slotJ[s])
    if (offset < 0) return null
    let list = columnsOf[slotPiece[s]] as Array<Column | undefined>
    let c = list[offset]
    if (c === undefined) {
      if (keptCount >= KEPT_COLUMNS) {
        kept.clear()
        keptCount = 0
        for (let k = 0; k < pieces.length; k++) columnsOf[k] = pieces[k] === null ? null : keptFor(pieces[k]!)
        list = columnsOf[slotPiece[s]] as Array<Column | undefined>
      }
      c = fillColumn(tileColumn(piece.layout, piece.values, slotI[s], slotJ[s]),
        createColumn(piece.layout.levelsPa.length))
      list[offset] = c
      keptCount++
    }
    return c
  }
  const order = localityOrder(task)
  points: for (let r = 0; r < order.length; r++) {
    const p = task.start + order[r] % SLICE_SPAN
    if (status[p] !== OK) continue
    const base = p * SLOTS
    // the columns, and the model terrain blended with the same weights
    let modelGround = 0
    let used = 0
    for (let k = 0; k < SLOTS; k++) {
      const s = base + k
      columns[k] = null
      if (slotPiece[s] < 0) continue
      const failed = pieceStatus[slotPiece[s]]
      if (failed !== OK) { status[p] = failed; continue points }
      const c = column(s)
      if (c === null) { status[p] = OUTSIDE_SOURCE; continue points }
      if (c.count === 0 || !Number.isFinite(c.model_ground_elevation_m_msl)) {
        status[p] = UNUSABLE
        continue points
      }
      columns[k] = c
      modelGround += slotW[s] * c.model_ground_elevation_m_msl
      used++
    }
    if (used === 0) { status[p] = OUTSIDE_SOURCE; continue }
    const supplied = ground[p]
    const groundMsl = Number.isNaN(supplied) ? modelGround : supplied
    const a = altitude[p]
    const z = agl ? a + groundMsl : a
    let u = 0
    let v = 0
    let t = 0
    let q = 0
    let lnp = 0
    let pOwn = NaN
    for (let k = 0; k < SLOTS; k++) {
      const c = columns[k]
      if (c === null) continue
      const w = slotW[base + k]
      const bottom = c.z_m[0]
      const top = c.z_m[c.count - 1]
      // nearest compares as the profile route does, in the request's own reference
      const inside = nearest
        ? (agl ? a >= bottom - groundMsl && a <= top - groundMsl : a >= bottom && a <= top)
        : z >= bottom && z <= top
      if (!inside && !clamp) { status[p] = OUTSIDE_VERTICAL; continue points }
      columnValuesAt(c, inside ? z : (z < bottom ? bottom : top), at)
      u += w * at[AT_U]
      v += w * at[AT_V]
      t += w * at[AT_T]
      q += w * at[AT_Q]
      lnp += w * at[AT_LNP]
      if (used === 1 && w === 1) pOwn = at[AT_P]
    }
    // one column of weight 1 keeps its own pressure (a height on a level: that level's p)
    const pressure = Number.isNaN(pOwn) ? Math.exp(lnp) : pOwn
    out[p] = u
    out[n + p] = v
    out[2 * n + p] = windSpeed(u, v)
    out[3 * n + p] = windDirectionFrom(u, v)
    out[4 * n + p] = t
    out[5 * n + p] = pressure
    out[6 * n + p] = q
    out[7 * n + p] = relativeHumidityLiquid(q, pressure, t)
    out[8 * n + p] = moistAirDensity(pressure, t, q)
    out[OUT_ALTITUDE_MSL * n + p] = z
    out[OUT_GROUND * n + p] = groundMsl
  }
}
