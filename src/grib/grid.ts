// Nearest grid point by index rounding (docs/DESIGN.md §3): counted from the southern and western edges
// whatever the scanning mode, ties to the larger latitude/longitude, longitudes modulo 360.
import type { LatLonGrid } from './section3.js'

export interface GridPoint {
  index: number // position in the decoded array, for the grid's scanning mode
  i: number // column counted eastward from the western edge
  j: number // row counted northward from the southern edge
  latitude: number
  longitude: number // in (-180, 180]
}

/** Longitude in (-180, 180]. */
export function normalizeLongitude (lon: number): number {
  const x = ((lon % 360) + 360) % 360 // [0, 360)
  return x > 180 ? x - 360 : x
}

/** Position in the decoded array of column i (from the west) and row j (from the south). */
export function indexOf (grid: LatLonGrid, i: number, j: number): number {
  const row = grid.scanningMode & 0x40 ? j : grid.nj - 1 - j
  const col = grid.scanningMode & 0x80 ? grid.ni - 1 - i : i
  return row * grid.ni + col
}

/** The grid point nearest (lat, lon) by index rounding; null when it falls outside a regional grid. */
export function gridPointIndex (grid: LatLonGrid, lat: number, lon: number): GridPoint | null {
  const at = nearestColumnRow(grid, lat, lon)
  if (at < 0) return null
  const j = Math.floor(at / grid.ni)
  const i = at - j * grid.ni
  return {
    index: indexOf(grid, i, j),
    i,
    j,
    latitude: grid.south + j * grid.dj,
    longitude: normalizeLongitude(grid.west + i * grid.di)
  }
}

/**
 * gridPointIndex without the object (the samples planner calls it per point): j × ni + i of the
 * nearest grid point, or −1 when it falls outside a regional grid.
 */
export function nearestColumnRow (grid: LatLonGrid, lat: number, lon: number): number {
  if (!Number.isFinite(lat) || !Number.isFinite(lon)) return -1
  const j = Math.floor((lat - grid.south) / grid.dj + 0.5)
  if (j < 0 || j >= grid.nj) return -1
  let x = ((lon - grid.west) % 360 + 360) % 360 // [0, 360) east of the western edge
  // within half a cell west of the western edge rounds to column 0, as a latitude just south
  // of the southern edge rounds to row 0; on a global grid this is the same column either way
  if (x >= 360 - grid.di / 2) x -= 360
  let i = Math.floor(x / grid.di + 0.5)
  if (grid.global) {
    i %= grid.ni
  } else if (i < 0 || i >= grid.ni) {
    return -1
  }
  return j * grid.ni + i
}
