// Filled columns are kept per decoded unit: the same column again without refilling, equal to a
// freshly filled one, the oldest going first at the bound, each unit's set its own. Real GFS bytes.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { scanMessages } from '../../src/grib/index.js'
import { ColumnMemo, columnOf, decodeTile } from '../../src/field/index.js'
import { repoUrl } from '../helpers/paths.js'

const SAMPLE = repoUrl('data/sample/gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006')
const bytes = new Uint8Array(await readFile(SAMPLE))
const { layout, values } = decodeTile(bytes, scanMessages(bytes), undefined, false)

t.test('a column asked for again is the one filled the first time, equal to a fresh fill', async (t) => {
  const memo = new ColumnMemo()
  const unit = { layout, values }
  const first = memo.get(unit, 10, 7)
  t.equal(memo.get(unit, 10, 7), first)
  const fresh = columnOf(layout, values, 10, 7)
  t.equal(first.count, fresh.count)
  t.same([...first.z_m.subarray(0, first.count)], [...fresh.z_m.subarray(0, fresh.count)])
  t.same([...first.q_kg_kg.subarray(0, first.count)], [...fresh.q_kg_kg.subarray(0, fresh.count)])
  t.not(memo.get(unit, 11, 7), first, 'another point is another column')
})

t.test('at the bound the oldest column goes and the rest stay', async (t) => {
  const memo = new ColumnMemo(3)
  const unit = { layout, values }
  const a = memo.get(unit, 0, 0)
  const b = memo.get(unit, 1, 0)
  const c = memo.get(unit, 2, 0)
  memo.get(unit, 3, 0)
  t.equal(memo.get(unit, 2, 0), c, 'the newest stays')
  t.equal(memo.get(unit, 1, 0), b, 'the second oldest stays')
  t.not(memo.get(unit, 0, 0), a, 'the oldest was filled again')
})

t.test('each unit keeps its own columns', async (t) => {
  const memo = new ColumnMemo(2)
  const one = { layout, values }
  const two = { layout, values }
  const a = memo.get(one, 5, 5)
  memo.get(two, 6, 6)
  memo.get(two, 7, 7)
  memo.get(two, 8, 8)
  t.equal(memo.get(one, 5, 5), a, "another unit's traffic does not push it out")
  t.not(memo.get(two, 5, 5), a)
})
