// Where a latitude/longitude falls on a unit's grid, and reading values of a tile in place.
// Positions count from the grid's southern and western edges whatever the file's scanning mode
// (as tiles store them), longitudes modulo 360, so a global grid wraps at 0°/360° E.
import type { LatLonGrid } from '../grib/index.js'
import { planeOffset, type TileLayout } from './layout.js'

/**
 * Fractional grid position: x = ((lon − west) mod 360) / Δlon, y = (lat − south) / Δlat.
 * Grid point (i, j) sits at (x, y) = (i, j). x is in [0, 360/Δlon).
 */
export function gridX (grid: LatLonGrid, lon: number): number {
  return (((lon - grid.west) % 360) + 360) % 360 / grid.di
}

export function gridY (grid: LatLonGrid, lat: number): number {
  return (lat - grid.south) / grid.dj
}

/**
 * The four corners of a bilinear stencil and their weights: columns i0, i1 and rows j0, j1 with
 * weights w00 at (i0, j0), w10 at (i1, j0), w01 at (i0, j1), w11 at (i1, j1). A corner of zero
 * weight is never read: on a grid line i1 = i0 (or j1 = j0), so the stencil stays on the grid.
 */
export interface Stencil {
  i0: number
  i1: number
  j0: number
  j1: number
  w00: number
  w10: number
  w01: number
  w11: number
}

export function createStencil (): Stencil {
  return { i0: 0, i1: 0, j0: 0, j1: 0, w00: 0, w10: 0, w01: 0, w11: 0 }
}

/**
 * Fills `out` with the bilinear stencil of (lat, lon) on `grid`; false when a weighted corner lies
 * off the grid (a point outside a regional grid, or beyond its last row or column). On a global
 * grid column i0 + 1 wraps to 0. Allocation-free: the samples engine calls it per point.
 */
export function bilinearStencil (grid: LatLonGrid, lat: number, lon: number, out: Stencil): boolean {
  return stencilAt(grid, gridX(grid, lon), gridY(grid, lat), out)
}

/** bilinearStencil from grid coordinates (gridX, gridY): callers that keep them skip the longitude wrap. */
export function stencilAt (grid: LatLonGrid, x: number, y: number, out: Stencil): boolean {
  if (!(y >= 0) || !Number.isFinite(x)) return false
  const i0 = Math.floor(x)
  const j0 = Math.floor(y)
  const fx = x - i0
  const fy = y - j0
  let i1 = fx === 0 ? i0 : i0 + 1
  const j1 = fy === 0 ? j0 : j0 + 1
  if (grid.global) {
    if (i1 >= grid.ni) i1 -= grid.ni
  } else if (i1 >= grid.ni) {
    return false
  }
  if (i0 >= grid.ni || j1 >= grid.nj) return false
  out.i0 = i0
  out.i1 = i1
  out.j0 = j0
  out.j1 = j1
  out.w00 = (1 - fx) * (1 - fy)
  out.w10 = fx * (1 - fy)
  out.w01 = (1 - fx) * fy
  out.w11 = fx * fy
  return true
}

/** Whether the tile holds every corner of the stencil. */
export function tileHoldsStencil (layout: TileLayout, s: Stencil): boolean {
  return planeOffset(layout, s.i0, s.j0) >= 0 && planeOffset(layout, s.i1, s.j1) >= 0 &&
    planeOffset(layout, s.i1, s.j0) >= 0 && planeOffset(layout, s.i0, s.j1) >= 0
}

/** The value of isobaric variable `v` at level index `k`, grid point (i, j), read in place; NaN when not held. */
export function tileValue (layout: TileLayout, values: Float32Array, v: number, k: number, i: number,
  j: number): number {
  const offset = planeOffset(layout, i, j)
  return offset < 0 ? NaN : values[v * layout.strides.variable + k * layout.strides.level + offset]
}

/** Surface HGT (model terrain, geopotential metres) at grid point (i, j), read in place; NaN when not held. */
export function surfaceValue (layout: TileLayout, values: Float32Array, i: number, j: number): number {
  const offset = planeOffset(layout, i, j)
  return offset < 0 ? NaN : values[layout.surfaceOffset + offset]
}
