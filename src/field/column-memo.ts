// Filled columns kept per decoded unit: filling one (heights, q from RH) costs more than
// interpolating it, and callers come back to the same grid points. A unit's set goes with the
// unit (WeakMap) and holds at most COLUMNS_PER_UNIT (about 2.3 KB each, so under 5 MB a unit: the
// 0.25° points of an 8° × 12° region), the oldest filled going first.
import type { Column } from '../atmosphere/index.js'
import type { TileLayout } from './layout.js'
import { columnOf } from './tile-column.js'

export const COLUMNS_PER_UNIT = 2048

/** What a memo needs of a decoded unit. */
export interface ColumnHolder {
  layout: TileLayout
  values: Float32Array
}

export class ColumnMemo {
  readonly #columns = new WeakMap<ColumnHolder, Map<number, Column>>()

  constructor (readonly perUnit = COLUMNS_PER_UNIT) {}

  /** The filled column at (i, j) of `unit` (with the surface layer when asked), filled once and then reused. */
  get (unit: ColumnHolder, i: number, j: number, surfaceLayer = false): Column {
    let columns = this.#columns.get(unit)
    if (columns === undefined) {
      columns = new Map()
      this.#columns.set(unit, columns)
    }
    const at = 2 * (j * unit.layout.grid.ni + i) + (surfaceLayer ? 1 : 0)
    let column = columns.get(at)
    if (column === undefined) {
      column = columnOf(unit.layout, unit.values, i, j, surfaceLayer)
      // a Map iterates in insertion order: its first key is the oldest
      if (columns.size >= this.perUnit) columns.delete(columns.keys().next().value as number)
      columns.set(at, column)
    }
    return column
  }
}
