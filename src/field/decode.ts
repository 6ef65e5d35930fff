// GRIB2 fields of one unit → a tile (see layout.ts): the fields a column needs, first occurrence
// of each (variable, level), decoded and copied into [variable][level][row][col] order, and the
// surface layer's near-ground fields the unit holds at the precision §8 asks, a plane each.
import { surfaceNodesUsed } from '../atmosphere/index.js'
import { dataParams, decodeField, indexOf, packingStep, type GribField, type LatLonGrid } from '../grib/index.js'
import { LEVEL_ISOBARIC, LEVEL_SURFACE, SURFACE_LAYER_RECORDS, surfaceLayerIndex } from '../source/index.js'
import {
  TILE_VARIABLES, TileError, VAR, tileLayout, type GridBox, type TileLayout, type TileVariable
} from './layout.js'

/** The variables a column cannot do without (humidity: SPFH or RH, checked separately). */
const REQUIRED: readonly TileVariable[] = ['HGT', 'TMP', 'UGRD', 'VGRD']

function sameGrid (a: LatLonGrid, b: LatLonGrid): boolean {
  return a.ni === b.ni && a.nj === b.nj && a.la1 === b.la1 && a.lo1 === b.lo1 && a.di === b.di && a.dj === b.dj &&
    a.scanningMode === b.scanningMode
}

export interface SelectedFields {
  isobaric: Map<string, GribField>
  surface: GribField | undefined
  levelsPa: number[]
  /** Per SURFACE_LAYER_RECORDS entry: its field, when the unit holds it. */
  nearGround: Array<GribField | undefined>
}



/** The fields of a unit that a tile takes: first occurrence of each (variable, level) wins. */
export function selectFields (fields: readonly GribField[]): SelectedFields {
  const isobaric = new Map<string, GribField>()
  let surface: GribField | undefined
  const levels = new Set<number>()
  const nearGround: Array<GribField | undefined> = SURFACE_LAYER_RECORDS.map(() => undefined)
  for (const f of fields) {
    if (f.level.type === LEVEL_SURFACE && f.name === 'HGT') {
      surface ??= f
    } else if (f.level.type !== LEVEL_ISOBARIC) {
      const k = surfaceLayerIndex(f)
      if (k >= 0) nearGround[k] ??= f
    } else if (f.level.value !== null &&
      (TILE_VARIABLES as readonly string[]).includes(f.name)) {
      const key = `${f.name}@${f.level.value}`
      if (!isobaric.has(key)) isobaric.set(key, f)
      if (f.name === 'HGT') levels.add(f.level.value)
    }
  }
  return { isobaric, surface, levelsPa: [...levels].sort((a, b) => b - a), nearGround }
}

/**
 * Decodes the fields a column needs from one unit's GRIB2 bytes into a tile over `box` (the whole
 * grid when absent). Throws TileError when the unit cannot make a column: no surface HGT, a
 * required variable absent, humidity absent, or fields on different grids.
 */
export function decodeTile (
  bytes: Uint8Array, fields: readonly GribField[], box?: GridBox, shared = true
): { layout: TileLayout, values: Float32Array } {
  const { isobaric, surface, levelsPa, nearGround } = selectFields(fields)
  if (surface === undefined) throw new TileError('the unit has no surface HGT (model terrain)')
  if (levelsPa.length === 0) throw new TileError('the unit has no isobaric HGT')
  const grid = surface.grid
  for (const f of [...isobaric.values(), ...nearGround]) {
    if (f !== undefined && !sameGrid(f.grid, grid)) {
      throw new TileError(`${f.name} at ${String(f.level.value)} Pa is on another grid than surface HGT`)
    }
  }
  const present = TILE_VARIABLES.map((name) => levelsPa.some((p) => isobaric.has(`${name}@${p}`)))
  for (const name of REQUIRED) {
    if (!present[VAR[name]]) throw new TileError(`the unit has no ${name} on isobaric levels`)
  }
  if (!present[VAR.SPFH] && !present[VAR.RH]) throw new TileError('the unit has neither SPFH nor RH on isobaric levels')

  // a near-ground field coarser than its variable's tolerance is left out like a missing one (§8)
  const used = surfaceNodesUsed(nearGround.map((f) => f === undefined ? undefined : packingStep(dataParams(bytes, f))))
  const b = box === undefined ? { i0: 0, j0: 0, ni: grid.ni, nj: grid.nj } : clip(box, grid)
  const layout = tileLayout(grid, b, levelsPa, present, used)
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
  nearGround.forEach((f, k) => {
    if (f !== undefined && used[k]) copy(f, layout.surfaceOffset + (1 + k) * layout.strides.level)
  })
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
