// Reads one grid point's column straight out of a tile (no copy): the atmosphere room's
// ColumnSource over the tile's strides.
import type { ColumnSource, LevelSeries } from '../atmosphere/index.js'
import { VAR, tileOffset, type TileLayout, type TileVariable } from './tile.js'

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
    rh_pct: layout.present[VAR.RH] ? series('RH') : null
  }
}
