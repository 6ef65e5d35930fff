// Where a latitude/longitude falls on a unit's grid, the bilinear stencil's corners and weights,
// the wrap at 0°/360° E, and values read in place from a decoded tile of real GFS bytes.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { decodeField, indexOf, scanMessages, type LatLonGrid } from '../../src/grib/index.js'
import { GLOBAL_0P25 } from '../../src/source/index.js'
import {
  VAR, bilinearStencil, createStencil, decodeTile, gridX, gridY, surfaceValue, tileHoldsStencil, tileValue
} from '../../src/field/index.js'
import { repoUrl } from '../helpers/paths.js'

const SAMPLE = repoUrl('data/sample/gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006')
const bytes = new Uint8Array(await readFile(SAMPLE))
const fields = scanMessages(bytes)
const grid: LatLonGrid = fields[0].grid // 48–56°N, 13–25°E, 0.25°, rows stored south to north

t.test('a grid point sits at its own indices; a cell centre half-way between', async (t) => {
  t.equal(gridX(grid, 13), 0)
  t.equal(gridY(grid, 48), 0)
  t.equal(gridX(grid, 21), 32)
  t.equal(gridY(grid, 52.25), 17)
  t.equal(gridX(grid, 21.125), 32.5)
  t.equal(gridY(grid, 52.375), 17.5)
})

t.test('on a grid point the stencil is that point alone, with weight 1', async (t) => {
  const s = createStencil()
  t.ok(bilinearStencil(grid, 52.25, 21, s))
  t.match(s, { i0: 32, i1: 32, j0: 17, j1: 17, w00: 1, w10: 0, w01: 0, w11: 0 })
})

t.test('between grid points the four corners share the weight by distance', async (t) => {
  const s = createStencil()
  t.ok(bilinearStencil(grid, 52.25 + 0.25 * 0.75, 21 + 0.25 * 0.5, s))
  t.match(s, { i0: 32, i1: 33, j0: 17, j1: 18 })
  t.equal(s.w00, 0.5 * 0.25)
  t.equal(s.w10, 0.5 * 0.25)
  t.equal(s.w01, 0.5 * 0.75)
  t.equal(s.w11, 0.5 * 0.75)
})

t.test('on a grid line the zero-weight neighbour is not part of the stencil', async (t) => {
  const s = createStencil()
  t.ok(bilinearStencil(grid, 52.25, 21.1, s))
  t.equal(s.j1, s.j0, 'on a row: one row')
  t.not(s.i1, s.i0)
  t.ok(bilinearStencil(grid, 52.3, 21, s))
  t.equal(s.i1, s.i0, 'on a column: one column')
})

t.test('a regional grid serves its own edges and refuses points beyond them', async (t) => {
  const s = createStencil()
  t.ok(bilinearStencil(grid, 56, 25, s), 'the north-east corner point')
  t.match(s, { i0: 48, i1: 48, j0: 32, j1: 32, w00: 1 })
  t.ok(bilinearStencil(grid, 48, 13, s), 'the south-west corner point')
  t.notOk(bilinearStencil(grid, 56.1, 20, s), 'north of the last row')
  t.notOk(bilinearStencil(grid, 47.9, 20, s), 'south of the first row')
  t.notOk(bilinearStencil(grid, 50, 25.1, s), 'east of the last column')
  t.notOk(bilinearStencil(grid, 50, 12.9, s), 'west of the first column (wraps to the far east)')
  t.notOk(bilinearStencil(grid, NaN, 20, s))
  t.notOk(bilinearStencil(grid, 50, Infinity, s))
})

t.test('a global grid wraps at 0°/360° E', async (t) => {
  const s = createStencil()
  t.ok(bilinearStencil(GLOBAL_0P25, 0, 359.875, s))
  t.match(s, { i0: 1439, i1: 0, j0: 360, j1: 360 })
  t.equal(s.w00, 0.5)
  t.equal(s.w10, 0.5)
  const west = createStencil()
  t.ok(bilinearStencil(GLOBAL_0P25, 0, -0.125, west))
  t.same(west, s, 'a negative longitude is the same place')
  t.ok(bilinearStencil(GLOBAL_0P25, 90, 10, s), 'the pole row')
  t.match(s, { j0: 720, j1: 720 })
})

t.test('values are read in place from a decoded tile, as the decoder gives them', async (t) => {
  const { layout, values } = decodeTile(bytes, fields, undefined, false)
  const k = layout.levelsPa.indexOf(50000)
  const tmp500 = fields.find((f) => f.name === 'TMP' && f.level.type === 100 && f.level.value === 50000)!
  const surface = fields.find((f) => f.name === 'HGT' && f.level.type === 1)!
  const tmp = decodeField(bytes, tmp500)
  const hgt = decodeField(bytes, surface)
  for (const [i, j] of [[0, 0], [32, 17], [48, 32], [5, 30]]) {
    t.equal(tileValue(layout, values, VAR.TMP, k, i, j), tmp[indexOf(grid, i, j)], `TMP 500 hPa at (${i}, ${j})`)
    t.equal(surfaceValue(layout, values, i, j), hgt[indexOf(grid, i, j)], `surface HGT at (${i}, ${j})`)
  }
  t.ok(Number.isNaN(tileValue(layout, values, VAR.TMP, k, 49, 0)), 'a point the tile does not hold reads NaN')
  t.ok(Number.isNaN(surfaceValue(layout, values, 0, 33)))
  const s = createStencil()
  bilinearStencil(grid, 52.23, 21.01, s)
  const blended = s.w00 * tmp[indexOf(grid, s.i0, s.j0)] + s.w10 * tmp[indexOf(grid, s.i1, s.j0)] +
    s.w01 * tmp[indexOf(grid, s.i0, s.j1)] + s.w11 * tmp[indexOf(grid, s.i1, s.j1)]
  const inPlace = s.w00 * tileValue(layout, values, VAR.TMP, k, s.i0, s.j0) +
    s.w10 * tileValue(layout, values, VAR.TMP, k, s.i1, s.j0) +
    s.w01 * tileValue(layout, values, VAR.TMP, k, s.i0, s.j1) +
    s.w11 * tileValue(layout, values, VAR.TMP, k, s.i1, s.j1)
  t.equal(inPlace, blended, 'the stencil blends the same four values')
})

t.test('a tile cut to a box holds only the stencils inside it', async (t) => {
  const { layout } = decodeTile(bytes, fields, { i0: 10, j0: 10, ni: 8, nj: 8 }, false)
  const s = createStencil()
  bilinearStencil(grid, 48 + 12.5 * 0.25, 13 + 12.5 * 0.25, s)
  t.ok(tileHoldsStencil(layout, s), 'well inside')
  bilinearStencil(grid, 48 + 17.5 * 0.25, 13 + 12.5 * 0.25, s)
  t.notOk(tileHoldsStencil(layout, s), 'its upper row is outside the box')
  bilinearStencil(grid, 48 + 17 * 0.25, 13 + 17 * 0.25, s)
  t.ok(tileHoldsStencil(layout, s), 'on the box\'s last row and column: the zero-weight neighbours are not needed')
})
