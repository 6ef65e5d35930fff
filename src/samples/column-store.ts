// Filled columns kept by one thread across samples calls, packed in one Float64Array (mapbox/pbf
// style: one buffer, offsets into it). Filling a column (heights from geopotential, q from RH for
// GFS v15) costs more than interpolating it many times, and requests come back to the same
// pieces; packed records keep the kernel's reads of a column within a few cache lines, where a
// column of seven separate arrays costs a cache miss per array.
import { createColumn, fillColumn, SURFACE_NODE_CAPACITY, type Column } from '../atmosphere/index.js'
import { planeOffset, tileColumn, type DecodedUnit, type TileLayout } from '../field/index.js'

/**
 * A record: [count, model ground (m MSL), the surface layer's power-law top (m MSL; −Infinity
 * without the layer) and 10 m wind u, v, z × levels, then per level u, v, T, q, ln p, p]; the
 * levels sorted by height as fillColumn sorts them. `count` 0 or a non-finite ground: unusable.
 */
export const REC_COUNT = 0
export const REC_GROUND = 1
export const REC_POWER_LAW_BELOW = 2
export const REC_U10 = 3
export const REC_V10 = 4
export const REC_Z = 5
/** Values per level in a record's second part, and their order. */
export const REC_VALUES = 6
export const V_U = 0
export const V_V = 1
export const V_T = 2
export const V_Q = 3
export const V_LNP = 4
export const V_P = 5

/** A decoded piece of a unit, read in place. */
export interface SamplePiece {
  /** Names the decoded bytes (unit, block, sha256): filled columns are kept under it across calls. */
  key: string
  /** The same for its columns with the surface layer joined. */
  surfaceKey: string
  layout: TileLayout
  values: Float32Array
}

/** One SamplePiece per decoded unit: the same key string every call (the column store indexes by it). */
const samplePieces = new WeakMap<DecodedUnit, SamplePiece>()

export function samplePiece (u: DecodedUnit): SamplePiece {
  let piece = samplePieces.get(u)
  if (piece === undefined) {
    piece = { key: `${u.key}@${u.sha256}`, surfaceKey: `${u.key}@${u.sha256}+surface`, layout: u.layout,
      values: u.values }
    samplePieces.set(u, piece)
  }
  return piece
}

/** Records kept at most (about 2.3 KB each with 41 levels), and pieces indexed at most. */
export const KEPT_COLUMNS = 16_384
const KEPT_PIECES = 256
const FIRST_RECORDS = 256

export class ColumnStore {
  /** The records; replaced when it grows, so read it again after `record`. */
  data = new Float64Array(0)
  /** Levels a record has room for; the values part starts at REC_Z + levels. */
  levels = 0
  #stride = 0
  #records = 0
  /** Per piece key: the record index of each grid point of its plane (−1: not filled yet). */
  readonly #index = new Map<string, Int32Array>()
  #scratch: Column = createColumn(0)

  /** Makes room for these pieces' levels and the surface layer's nodes (dropping what is kept if a record grows). */
  prepare (pieces: ReadonlyArray<SamplePiece | null>, surfaceLayer = false): void {
    let levels = this.levels
    const more = surfaceLayer ? SURFACE_NODE_CAPACITY : 0
    for (const piece of pieces) if (piece !== null) levels = Math.max(levels, piece.layout.levelsPa.length + more)
    if (levels === this.levels) return
    this.levels = levels
    this.#stride = REC_Z + levels * (1 + REC_VALUES)
    this.#scratch = createColumn(levels)
    this.data = new Float64Array(FIRST_RECORDS * this.#stride)
    this.clear()
  }

  /** Offset in `data` of the values part of a record. */
  get valuesOffset (): number {
    return REC_Z + this.levels
  }

  /**
   * Room for `more` new records without dropping any in between: true when everything kept was
   * dropped to make it (record offsets taken before are then stale).
   */
  reserve (more: number): boolean {
    if (this.#records + more <= KEPT_COLUMNS) return false
    this.clear()
    return true
  }

  clear (): void {
    this.#records = 0
    this.#index.clear()
  }

  /**
   * Offset in `data` of the record of the column at source-grid column i, row j of `piece` (with
   * the surface layer joined when asked), filled on first use; −1 when the piece does not hold
   * that grid point.
   */
  record (piece: SamplePiece, i: number, j: number, surfaceLayer = false): number {
    const { layout } = piece
    const offset = planeOffset(layout, i, j)
    if (offset < 0) return -1
    const key = surfaceLayer ? piece.surfaceKey : piece.key
    let index = this.#index.get(key)
    if (index === undefined) {
      if (this.#index.size >= KEPT_PIECES) this.clear()
      index = new Int32Array(layout.box.ni * layout.box.nj).fill(-1)
      this.#index.set(key, index)
    }
    if (index[offset] >= 0) return index[offset] * this.#stride
    const r = this.#records++
    index[offset] = r
    const base = r * this.#stride
    if (base + this.#stride > this.data.length) {
      const grown = new Float64Array(Math.max(this.data.length * 2, base + this.#stride))
      grown.set(this.data)
      this.data = grown
    }
    this.#pack(fillColumn(tileColumn(layout, piece.values, i, j), this.#scratch, surfaceLayer), base)
    return base
  }

  #pack (c: Column, base: number): void {
    const d = this.data
    const count = c.count
    d[base + REC_COUNT] = count
    d[base + REC_GROUND] = c.model_ground_elevation_m_msl
    d[base + REC_POWER_LAW_BELOW] = c.power_law_below_m_msl
    d[base + REC_U10] = c.wind_u_10m
    d[base + REC_V10] = c.wind_v_10m
    const values = base + REC_Z + this.levels
    for (let k = 0; k < count; k++) {
      d[base + REC_Z + k] = c.z_m[k]
      const v = values + k * REC_VALUES
      d[v + V_U] = c.u_ms[k]
      d[v + V_V] = c.v_ms[k]
      d[v + V_T] = c.t_k[k]
      d[v + V_Q] = c.q_kg_kg[k]
      d[v + V_LNP] = c.ln_pressure[k]
      d[v + V_P] = c.pressure_pa[k]
    }
  }
}
