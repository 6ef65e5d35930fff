// The golden profiles through aloft's own path: our GRIB2 decoder → tile → column → physics,
// against the independent reference numbers (tolerance per test/fixtures/profiles/README.md).
import t, { type Test } from 'tap'
import { readFile } from 'node:fs/promises'
import { scanMessages, gridPointIndex } from '../../src/grib/index.js'
import { buildColumn, computeProfile, createColumn, fillColumn } from '../../src/atmosphere/index.js'
import { decodeTile } from '../../src/field/index.js'
import { tileColumn } from '../../src/field/index.js'
import { repoUrl } from '../helpers/paths.js'

interface Case {
  name: string
  file: string
  request: {
    latitude: number
    longitude: number
    altitudes_m: number[]
    altitude_reference: 'agl' | 'msl'
    ground_elevation_m_msl?: number | null
  }
  expected: Record<string, any>
}

const fixtures = repoUrl('test/fixtures/')

function close (t: Test, actual: number, expected: number, field: string, where: string): void {
  const near = field === 'specific_humidity_kg_kg' ? 1e-10 : 1e-4
  const ok = Math.abs(actual - expected) <= Math.max(near, 1e-5 * Math.abs(expected))
  t.ok(ok, `${where} ${field}`, ok ? {} : { actual, expected })
}

for (const [casesFile, gribFile, humidity] of [
  ['cases.json', undefined, 'rh_inverted_ncep_upp'],
  ['cases-spfh.json', 'derived/gfs.t12z.pgrb2.0p25.f006', 'spfh']
] as const) {
  const cases = JSON.parse(await readFile(new URL(`profiles/${casesFile}`, fixtures), 'utf8')) as Case[]
  for (const c of cases) {
    t.test(`${casesFile} ${c.name}`, async (t) => {
      const bytes = new Uint8Array(await readFile(new URL(`grib/${gribFile ?? c.file}`, fixtures)))
      const fields = scanMessages(bytes)
      const { layout, values } = decodeTile(bytes, fields)
      const point = gridPointIndex(layout.grid, c.request.latitude, c.request.longitude)
      if (point === null) throw new Error('point outside the fixture grid')
      t.equal(point.latitude, c.expected.sampled_latitude, 'sampled latitude')
      t.equal(point.longitude, c.expected.sampled_longitude, 'sampled longitude')
      const column = fillColumn(tileColumn(layout, values, point.i, point.j), createColumn(layout.levelsPa.length))
      t.equal(column.specific_humidity_source, humidity)
      const result = computeProfile(column, c.request)
      close(
        t,
        result.ok || result.error === 'outside_vertical_range' ? result.model_ground_elevation_m_msl : NaN,
        c.expected.model_ground_elevation_m_msl,
        'model_ground_elevation_m_msl',
        'ground'
      )
      if (c.expected.error === 'outside_vertical_range') {
        t.equal(result.ok, false)
        if (result.ok || result.error !== 'outside_vertical_range') return
        for (const [k, v] of Object.entries(c.expected.coverage)) {
          close(t, (result.coverage as any)[k], v as number, k, 'coverage')
        }
        return
      }
      if (!result.ok) throw new Error(`expected levels, got ${result.error}`)
      close(t, result.ground_elevation_m_msl, c.expected.ground_elevation_m_msl, 'ground_elevation_m_msl', 'ground')
      for (const [k, v] of Object.entries(c.expected.coverage)) {
        close(t, (result.coverage as any)[k], v as number, k, 'coverage')
      }
      t.equal(result.levels.length, c.expected.levels.length)
      c.expected.levels.forEach((level: Record<string, number>, n: number) => {
        for (const [k, v] of Object.entries(level)) close(t, (result.levels[n] as any)[k], v, k, `level ${n}`)
      })
    })
  }
}

t.test('the tile column equals the column built from plain per-level values', async (t) => {
  const bytes = new Uint8Array(await readFile(new URL('grib/derived/gfs.t12z.pgrb2.0p25.f006', fixtures)))
  const { layout, values } = decodeTile(bytes, scanMessages(bytes))
  const point = gridPointIndex(layout.grid, 50, 20)!
  const source = tileColumn(layout, values, point.i, point.j)
  const at = (s: { data: ArrayLike<number>, offset: number, stride: number } | null, k: number) =>
    s === null ? null : s.data[s.offset + k * s.stride]
  const plain = buildColumn({
    surface_hgt_gpm: source.surface_hgt_gpm,
    levels: layout.levelsPa.map((p, k) => ({
      pressure_pa: p, hgt_gpm: at(source.hgt_gpm, k), tmp_k: at(source.tmp_k, k), ugrd_ms: at(source.ugrd_ms, k),
      vgrd_ms: at(source.vgrd_ms, k), spfh_kg_kg: at(source.spfh_kg_kg, k), rh_pct: at(source.rh_pct, k)
    }))
  })
  const direct = fillColumn(source, createColumn(layout.levelsPa.length))
  t.equal(direct.count, plain.count)
  t.same(Array.from(direct.z_m.subarray(0, direct.count)), Array.from(plain.z_m.subarray(0, plain.count)))
})
