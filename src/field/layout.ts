// A decoded fetch unit's layout: one flat Float32Array (in a SharedArrayBuffer) with named axes
// [variable][level][row][col], rows south→north and columns west→east whatever the file's
// scanning mode, then one plane of surface HGT and one per near-ground field of the surface layer
// (SURFACE_FIELDS' order, NaN where the unit lacks it). Every reader (profiles, samples,
// trajectories) goes through these strides.
import { SURFACE_FIELDS } from '../atmosphere/index.js'
import type { LatLonGrid } from '../grib/index.js'

/** Isobaric variables of a tile, in axis order. */
export const TILE_VARIABLES = ['HGT', 'TMP', 'UGRD', 'VGRD', 'SPFH', 'RH'] as const
export type TileVariable = typeof TILE_VARIABLES[number]
export const VAR: Readonly<Record<TileVariable, number>> = { HGT: 0, TMP: 1, UGRD: 2, VGRD: 3, SPFH: 4, RH: 5 }

/** A box of the source grid: columns i0…i0+ni−1 (modulo the row on a global grid), rows j0…j0+nj−1. */
export interface GridBox { i0: number, j0: number, ni: number, nj: number }

export interface TileLayout {
  /** Isobaric levels (Pa), in axis order: descending pressure. */
  levelsPa: number[]
  /** Per variable: whether the unit holds it at any level. */
  present: boolean[]
  /** Per SURFACE_FIELDS entry: whether the unit holds it as a node (at the precision docs/DESIGN.md §8 asks). */
  surfacePresent: boolean[]
  /** The source grid (as the GRIB grid section gives it) and the box of it this tile holds. */
  grid: LatLonGrid
  box: GridBox
  strides: { variable: number, level: number, row: number }
  /** Offset of the surface HGT plane (rows × cols); SURFACE_FIELDS' planes follow it. */
  surfaceOffset: number
  /** Float32 values in all. */
  length: number
}

export class TileError extends Error {
  override readonly name = 'TileError'
}

export function tileLayout (
  grid: LatLonGrid, box: GridBox, levelsPa: number[], present: boolean[],
  surfacePresent: boolean[] = SURFACE_FIELDS.map(() => false)
): TileLayout {
  const row = box.ni
  const level = box.ni * box.nj
  const variable = level * levelsPa.length
  const surfaceOffset = variable * TILE_VARIABLES.length
  return { levelsPa, present, surfacePresent, grid, box, strides: { variable, level, row }, surfaceOffset,
    length: surfaceOffset + level * (1 + SURFACE_FIELDS.length) }
}

/**
 * Offset within a plane of grid column i, row j (source-grid indices), or −1 when the tile does
 * not hold that point. On a global grid columns count modulo the row, so a box across 0° E is
 * read as one; a regional grid has no column beyond its last.
 */
export function planeOffset (layout: TileLayout, i: number, j: number): number {
  const { grid, box } = layout
  let c = i - box.i0
  if (grid.global) c = (c % grid.ni + grid.ni) % grid.ni
  const r = j - box.j0
  if (r < 0 || r >= box.nj || c < 0 || c >= box.ni) return -1
  return r * layout.strides.row + c
}

/** Offset in the tile of grid column i, row j (source-grid indices); throws when the tile does not hold it. */
export function tileOffset (layout: TileLayout, i: number, j: number): number {
  const offset = planeOffset(layout, i, j)
  if (offset < 0) throw new TileError(`grid point (${i}, ${j}) is outside the tile`)
  return offset
}
