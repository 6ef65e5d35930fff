// The samples kernel's parts: the processing order (a stable radix sort within each slice) and the
// packed column store (records equal to the atmosphere room's columns, kept and bounded), on real
// GFS bytes.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { scanMessages } from '../../src/grib/index.js'
import { columnOf, decodeTile } from '../../src/field/index.js'
import { sortByKey } from '../../src/samples/order.js'
import {
  ColumnStore, KEPT_COLUMNS, REC_COUNT, REC_GROUND, REC_VALUES, REC_Z, V_LNP, V_P, V_Q, V_T, V_U, V_V,
  type SamplePiece
} from '../../src/samples/column-store.js'
import { repoUrl } from '../helpers/paths.js'

const SAMPLE = repoUrl('data/sample/gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006')
const bytes = new Uint8Array(await readFile(SAMPLE))
const { layout, values } = decodeTile(bytes, scanMessages(bytes), undefined, false)
const piece = (key: string): SamplePiece => ({ key, surfaceKey: `${key}+surface`, layout, values })

function stableOrder (keys: Uint32Array, start: number, end: number): number[] {
  const points = Array.from({ length: end - start }, (_, k) => start + k)
  return points.sort((a, b) => keys[a] - keys[b] || a - b)
}

t.test('the processing order sorts each slice by key, stably, whatever bits the keys use', async (t) => {
  let seed = 7
  const next = (): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed }
  for (const [label, mask] of [['16-bit keys', 0xffff], ['32-bit keys', 0xffffffff], ['few keys', 0x7]] as const) {
    const keys = new Uint32Array(5000).map(() => (next() & mask) >>> 0)
    const order = new Int32Array(5000).fill(-1)
    sortByKey(keys, 0, 3000, order)
    sortByKey(keys, 3000, 5000, order)
    t.same([...order.subarray(0, 3000)], stableOrder(keys, 0, 3000), `${label}: the first slice`)
    t.same([...order.subarray(3000)], stableOrder(keys, 3000, 5000), `${label}: the second slice, its own points`)
  }
})

t.test('a packed record holds the column exactly as the atmosphere room fills it', async (t) => {
  const store = new ColumnStore()
  const p = piece('a')
  store.prepare([p])
  for (const [i, j] of [[0, 0], [32, 17], [48, 32]]) {
    const b = store.record(p, i, j)
    const c = columnOf(layout, values, i, j)
    const d = store.data
    t.equal(d[b + REC_COUNT], c.count, `(${i}, ${j}) levels`)
    t.equal(d[b + REC_GROUND], c.model_ground_elevation_m_msl)
    const at = (k: number, v: number): number => d[b + store.valuesOffset + k * REC_VALUES + v]
    const same = Array.from({ length: c.count }, (_, k) => d[b + REC_Z + k] === c.z_m[k] &&
      at(k, V_U) === c.u_ms[k] && at(k, V_V) === c.v_ms[k] && at(k, V_T) === c.t_k[k] &&
      at(k, V_Q) === c.q_kg_kg[k] && at(k, V_LNP) === c.ln_pressure[k] && at(k, V_P) === c.pressure_pa[k])
    t.ok(same.every(Boolean), `(${i}, ${j}): every level's z, u, v, T, q, ln p and p`)
  }
  t.equal(store.record(p, 49, 0), -1, 'a grid point the piece does not hold')
})

t.test('records are filled once and kept; past the bound everything kept is dropped', async (t) => {
  const store = new ColumnStore()
  const a = piece('a')
  const b = piece('b')
  store.prepare([a, b])
  const first = store.record(a, 5, 5)
  t.equal(store.record(a, 5, 5), first, 'the same grid point of the same piece: the same record')
  t.not(store.record(b, 5, 5), first, 'another piece (other bytes) has records of its own')
  t.notOk(store.reserve(8), 'room for a point\'s eight columns')
  t.ok(store.reserve(KEPT_COLUMNS), 'no room for more than the bound: dropped')
  t.equal(store.record(b, 6, 6), 0, 'filling starts again from the first record')
})
