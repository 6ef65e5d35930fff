// One grid point's column read straight out of a tile (no copy): the atmosphere room's
// ColumnSource over the tile's strides, and a filled column of its own for keeping.
import {
  createColumn, fillColumn, SURFACE_NODE_CAPACITY, type Column, type ColumnSource, type LevelSeries
} from '../atmosphere/index.js'
import { VAR, tileOffset, type TileLayout, type TileVariable } from './layout.js'

/** The column at source-grid column i, row j of a tile. */
export function tileColumn (layout: TileLayout, values: Float32Array, i: number, j: number): ColumnSource {
  const point = tileOffset(layout, i, j)
  const series = (name: TileVariable): LevelSeries => ({
    data: values, offset: VAR[name] * layout.strides.variable + point, stride: layout.strides.level
  })
  return {
    level_count: layout.levelsPa.length,
    surface_hgt_gpm: values[layout.surfaceOffset + point],
    pressure_pa: { data: layout.levelsPa, offset: 0, stride: 1 },
    hgt_gpm: series('HGT'),
    tmp_k: series('TMP'),
    ugrd_ms: series('UGRD'),
    vgrd_ms: series('VGRD'),
    spfh_kg_kg: layout.present[VAR.SPFH] ? series('SPFH') : null,
    rh_pct: layout.present[VAR.RH] ? series('RH') : null,
    surface: layout.surfacePresent.some(Boolean)
      ? { data: values, offset: layout.surfaceOffset + layout.strides.level + point, stride: layout.strides.level }
      : null
  }
}

/** Entries a column of this tile needs room for (with the surface layer: its nodes too). */
export function columnCapacity (layout: TileLayout, surfaceLayer: boolean): number {
  return layout.levelsPa.length + (surfaceLayer ? SURFACE_NODE_CAPACITY : 0)
}

/**
 * The filled column at (i, j) of a tile (with the surface layer joined when asked), in arrays of
 * its own (so it can be kept and reused).
 */
export function columnOf (
  layout: TileLayout, values: Float32Array, i: number, j: number, surfaceLayer = false
): Column {
  return fillColumn(tileColumn(layout, values, i, j), createColumn(columnCapacity(layout, surfaceLayer)), surfaceLayer)
}
