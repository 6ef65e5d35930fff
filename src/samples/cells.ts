// Which decoded piece holds a grid point, and which grid points a point reads: the cell tables
// the plan builds, a session extends and the kernel reads (one layout, one index), and a point's
// slots — its stencil's corners — in the one order the plan registers their pieces, a session
// checks them and the kernel blends them.
import type { Stencil } from '../field/index.js'
import type { LatLonGrid } from '../grib/index.js'
import type { Arrays } from './arrays.js'

/**
 * Which piece holds a grid point of a (run, step): grid points fall in square cells (a filter
 * tile, or a decoded block of a file); per (run, step) a dense table from cell to piece index
 * (−1: none planned), all tables in one shared array so pool workers read it in place.
 */
export interface PieceCells {
  /** Per (run, step): the cell size in grid points (0: no table), the cells per grid row, the offset of its table. */
  size: Int32Array
  columns: Int32Array
  offset: Int32Array
  cells: Int32Array
}

/** Where in `cells` the cell holding grid point (i, j) of (run, step) rs is. */
export function cellIndex (c: PieceCells, rs: number, i: number, j: number): number {
  const size = c.size[rs]
  return c.offset[rs] + Math.floor(j / size) * c.columns[rs] + Math.floor(i / size)
}

/** The piece holding grid point (i, j) of (run, step) rs; −1 when none was planned. */
export function pieceAt (c: PieceCells, rs: number, i: number, j: number): number {
  return c.cells[cellIndex(c, rs, i, j)]
}

/** `a`, or a copy of it with room for n values (the rest zero). */
export function grownInt32 (a: Int32Array, n: number): Int32Array {
  if (a.length >= n) return a
  const b = new Int32Array(Math.max(n, 2 * a.length))
  b.set(a)
  return b
}

/** Cell tables being built: each (run, step) is given its table when first met. */
export class CellTables {
  /** The tables; its arrays are replaced as they grow, the object stays. */
  readonly cells: PieceCells = {
    size: new Int32Array(0), columns: new Int32Array(0), offset: new Int32Array(0), cells: new Int32Array(0)
  }

  /** Whether (run, step) rs has a table. */
  has (rs: number): boolean {
    return rs < this.cells.size.length && this.cells.size[rs] !== 0
  }

  /** A table for rs over the whole grid, of cells of `size` grid points, none holding a piece yet. */
  add (rs: number, size: number, grid: LatLonGrid): void {
    const c = this.cells
    c.size = grownInt32(c.size, rs + 1)
    c.columns = grownInt32(c.columns, rs + 1)
    c.offset = grownInt32(c.offset, rs + 1)
    const columns = Math.ceil(grid.ni / size)
    const cells = new Int32Array(c.cells.length + columns * Math.ceil(grid.nj / size)).fill(-1)
    cells.set(c.cells)
    c.size[rs] = size
    c.columns[rs] = columns
    c.offset[rs] = c.cells.length
    c.cells = cells
  }

  /** The tables of `runSteps` (run, step)s, copied into `arrays` (shared memory for pool workers). */
  copy (runSteps: number, arrays: Arrays): PieceCells {
    const from = this.cells
    const to: PieceCells = { size: arrays.int32(runSteps), columns: arrays.int32(runSteps),
      offset: arrays.int32(runSteps), cells: arrays.int32(from.cells.length) }
    const count = Math.min(runSteps, from.size.length)
    to.size.set(from.size.subarray(0, count))
    to.columns.set(from.columns.subarray(0, count))
    to.offset.set(from.offset.subarray(0, count))
    to.cells.set(from.cells)
    return to
  }
}

/**
 * A stencil's four corners into slots at … at + 3: grid column, row, and weight × `scale`, in
 * the order the kernel blends them (i0 j0, i1 j0, i0 j1, i1 j1). A corner without weight is
 * never read: the plan registers no piece for it and a session does not ask for one.
 */
export function stencilSlots (s: Stencil, scale: number, at: number, slotI: Int32Array, slotJ: Int32Array,
  weights: Float64Array): void {
  weights[at] = s.w00 * scale
  weights[at + 1] = s.w10 * scale
  weights[at + 2] = s.w01 * scale
  weights[at + 3] = s.w11 * scale
  slotI[at] = s.i0; slotJ[at] = s.j0
  slotI[at + 1] = s.i1; slotJ[at + 1] = s.j0
  slotI[at + 2] = s.i0; slotJ[at + 2] = s.j1
  slotI[at + 3] = s.i1; slotJ[at + 3] = s.j1
}

/**
 * The `nearest` rule's slots at … at + 3: grid point (i, j) alone, the first corner with all the
 * weight — what stencilSlots writes for the stencil of a grid point itself (stencilAt at whole
 * grid coordinates), without computing that stencil.
 */
export function nearestSlots (i: number, j: number, scale: number, at: number, slotI: Int32Array,
  slotJ: Int32Array, weights: Float64Array): void {
  weights[at] = scale
  weights[at + 1] = weights[at + 2] = weights[at + 3] = 0
  slotI[at] = i
  slotJ[at] = j
}
