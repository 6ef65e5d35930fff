// A decoded fetch unit: one flat Float32Array (in a SharedArrayBuffer) with named axes
// [variable][level][row][col], rows south→north and columns west→east whatever the file's
// scanning mode, plus one plane of surface HGT. Every reader (single profiles now, bulk or 4-D
// sampling later) goes through these strides.
import { decodeField, indexOf, type GribField, type LatLonGrid } from '../grib/index.js'

/** Isobaric variables of a tile, in axis order. */
export const TILE_VARIABLES = ['HGT', 'TMP', 'UGRD', 'VGRD', 'SPFH', 'RH'] as const
export type TileVariable = typeof TILE_VARIABLES[number]
export const VAR: Readonly<Record<TileVariable, number>> = { HGT: 0, TMP: 1, UGRD: 2, VGRD: 3, SPFH: 4, RH: 5 }

/** The variables a column cannot do without (humidity: SPFH or RH, checked separately). */
const REQUIRED: readonly TileVariable[] = ['HGT', 'TMP', 'UGRD', 'VGRD']

/** A box of the source grid: columns i0…i0+ni−1 (modulo the row on a global grid), rows j0…j0+nj−1. */
export interface GridBox { i0: number, j0: number, ni: number, nj: number }

export interface TileLayout {
  /** Isobaric levels (Pa), in axis order: descending pressure. */
  levelsPa: number[]
  /** Per variable: whether the unit holds it at any level. */
  present: boolean[]
  /** The source grid (as the GRIB grid section gives it) and the box of it this tile holds. */
  grid: LatLonGrid
  box: GridBox
  strides: { variable: number, level: number, row: number }
  /** Offset of the surface HGT plane (rows × cols). */
  surfaceOffset: number
  /** Float32 values in all. */
  length: number
}

export class TileError extends Error {
  override readonly name = 'TileError'
}

export function tileLayout (grid: LatLonGrid, box: GridBox, levelsPa: number[], present: boolean[]): TileLayout {
  const row = box.ni
  const level = box.ni * box.nj
  const variable = level * levelsPa.length
  const surfaceOffset = variable * TILE_VARIABLES.length
  return { levelsPa, present, grid, box, strides: { variable, level, row }, surfaceOffset, length: surfaceOffset + level }
}

function sameGrid (a: LatLonGrid, b: LatLonGrid): boolean {
  return a.ni === b.ni && a.nj === b.nj && a.la1 === b.la1 && a.lo1 === b.lo1 && a.di === b.di && a.dj === b.dj && a.scanningMode === b.scanningMode
}

/** The fields of a unit that a tile takes: first occurrence of each (variable, level) wins. */
export function selectFields (fields: readonly GribField[]): { isobaric: Map<string, GribField>, surface: GribField | undefined, levelsPa: number[] } {
  const isobaric = new Map<string, GribField>()
  let surface: GribField | undefined
  const levels = new Set<number>()
  for (const f of fields) {
    if (f.level.type === 1 && f.name === 'HGT') {
      surface ??= f
    } else if (f.level.type === 100 && f.level.value !== null && (TILE_VARIABLES as readonly string[]).includes(f.name)) {
      const key = `${f.name}@${f.level.value}`
      if (!isobaric.has(key)) isobaric.set(key, f)
      if (f.name === 'HGT') levels.add(f.level.value)
    }
  }
  return { isobaric, surface, levelsPa: [...levels].sort((a, b) => b - a) }
}

/**
 * Decodes the fields a profile needs from one unit's GRIB2 bytes into a tile over `box` (the whole
 * grid when absent). Throws TileError when the unit cannot make a column: no surface HGT, a
 * required variable absent, humidity absent, or fields on different grids.
 */
export function decodeTile (bytes: Uint8Array, fields: readonly GribField[], box?: GridBox, shared = true): { layout: TileLayout, values: Float32Array } {
  const { isobaric, surface, levelsPa } = selectFields(fields)
  if (surface === undefined) throw new TileError('the unit has no surface HGT (model terrain)')
  if (levelsPa.length === 0) throw new TileError('the unit has no isobaric HGT')
  const grid = surface.grid
  for (const f of isobaric.values()) {
    if (!sameGrid(f.grid, grid)) throw new TileError(`${f.name} at ${String(f.level.value)} Pa is on another grid than surface HGT`)
  }
  const present = TILE_VARIABLES.map((name) => levelsPa.some((p) => isobaric.has(`${name}@${p}`)))
  for (const name of REQUIRED) if (!present[VAR[name]]) throw new TileError(`the unit has no ${name} on isobaric levels`)
  if (!present[VAR.SPFH] && !present[VAR.RH]) throw new TileError('the unit has neither SPFH nor RH on isobaric levels')

  const b = box === undefined ? { i0: 0, j0: 0, ni: grid.ni, nj: grid.nj } : clip(box, grid)
  const layout = tileLayout(grid, b, levelsPa, present)
  const buffer = shared ? new SharedArrayBuffer(layout.length * 4) : new ArrayBuffer(layout.length * 4)
  const values = new Float32Array(buffer).fill(NaN)
  const scratch = new Float32Array(grid.numberOfPoints)
  const copy = (field: GribField, offset: number): void => {
    decodeField(bytes, field, scratch)
    for (let r = 0; r < b.nj; r++) {
      const j = b.j0 + r
      const rowStart = offset + r * layout.strides.row
      for (let c = 0; c < b.ni; c++) {
        values[rowStart + c] = scratch[indexOf(grid, (b.i0 + c) % grid.ni, j)]
      }
    }
  }
  copy(surface, layout.surfaceOffset)
  for (let v = 0; v < TILE_VARIABLES.length; v++) {
    for (let k = 0; k < levelsPa.length; k++) {
      const field = isobaric.get(`${TILE_VARIABLES[v]}@${levelsPa[k]}`)
      if (field !== undefined) copy(field, v * layout.strides.variable + k * layout.strides.level)
    }
  }
  return { layout, values }
}

/** The part of `box` inside the grid (a block at the grid's north or east edge is cut short). */
function clip (box: GridBox, grid: LatLonGrid): GridBox {
  if (box.i0 < 0 || box.j0 < 0 || box.i0 >= grid.ni || box.j0 >= grid.nj || box.ni < 1 || box.nj < 1) {
    throw new TileError(`box at column ${box.i0}, row ${box.j0} lies outside the ${grid.ni}×${grid.nj} grid`)
  }
  return { i0: box.i0, j0: box.j0, ni: Math.min(box.ni, grid.ni - box.i0), nj: Math.min(box.nj, grid.nj - box.j0) }
}

/** Offset in the tile of grid column i, row j (source-grid indices) at variable v, level k. */
export function tileOffset (layout: TileLayout, i: number, j: number): number {
  const c = ((i - layout.box.i0) % layout.grid.ni + layout.grid.ni) % layout.grid.ni
  const r = j - layout.box.j0
  if (r < 0 || r >= layout.box.nj || c >= layout.box.ni) throw new TileError(`grid point (${i}, ${j}) is outside the tile`)
  return r * layout.strides.row + c
}
