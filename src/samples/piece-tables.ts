// The plan's decoded pieces: registered as the points' weighted columns are met, each (run, step)
// tabled by cell (cells.ts), so the distinct source units — and what they would cost — are known
// before any fetch.
import { BLOCK } from '../field/index.js'
import type { LatLonGrid } from '../grib/index.js'
import type { FetchUnit, HeldRunStep } from '../source/index.js'
import type { Arrays } from './arrays.js'
import { cellIndex, CellTables, type PieceCells } from './cells.js'

/** A decoded piece to load: the unit and a grid point it holds (which picks the block of a file). */
export interface PlannedPiece {
  unit: FetchUnit
  point: { i: number, j: number }
  /** Index of its (run, step) in `Plan.runSteps`. */
  runStep: number
}

/** Where the pieces come from: the source unit holding a grid point of a (run, step). */
export interface UnitSource {
  unitAt (rs: HeldRunStep, i: number, j: number): FetchUnit
}

/** Builds the plan's pieces and their cell tables. */
export class PieceTables {
  readonly pieces: PlannedPiece[] = []
  readonly #tables = new CellTables()
  readonly #keys = new Set<string>()
  // the last cell met per side (before, after) and its piece: consecutive lookups mostly hit it
  readonly #lastRs = new Int32Array([-1, -1])
  readonly #lastI0 = new Int32Array(2)
  readonly #lastJ0 = new Int32Array(2)

  constructor (
    readonly grid: LatLonGrid, readonly runSteps: readonly HeldRunStep[], readonly source: UnitSource
  ) {}

  /** Registers the piece holding grid point (i, j) of (run, step) rs, met on `side` (0: before, 1: after). */
  piece (side: number, rs: number, i: number, j: number): void {
    const c = this.#tables.cells
    if (rs === this.#lastRs[side]) {
      const size = c.size[rs]
      if (i >= this.#lastI0[side] && i < this.#lastI0[side] + size && j >= this.#lastJ0[side] &&
        j < this.#lastJ0[side] + size) return
    }
    if (!this.#tables.has(rs)) {
      // the (run, step)'s first point: its cells are its unit's tiles, or decoded blocks of a file
      this.#tables.add(rs, this.source.unitAt(this.runSteps[rs], i, j).tile?.size ?? BLOCK, this.grid)
    }
    const cell = cellIndex(c, rs, i, j)
    if (c.cells[cell] < 0) {
      const unit = this.source.unitAt(this.runSteps[rs], i, j)
      c.cells[cell] = this.pieces.length
      this.pieces.push({ unit, point: { i, j }, runStep: rs })
      this.#keys.add(unit.key)
    }
    const size = c.size[rs]
    this.#lastRs[side] = rs
    this.#lastI0[side] = Math.floor(i / size) * size
    this.#lastJ0[side] = Math.floor(j / size) * size
  }

  /** The tables, in the plan's arrays (shared memory for pool workers). */
  cells (arrays: Arrays): PieceCells {
    return this.#tables.copy(this.runSteps.length, arrays)
  }

  /** Distinct source unit keys (what the allowance and ALOFT_SAMPLES_MAX_UNITS count). */
  unitKeys (): string[] {
    return [...this.#keys]
  }
}
