// Golden profiles (test/fixtures/profiles/README.md): raw ecCodes values at each case's grid point
// (scripts/profile-columns.py) → our column builder and interpolation → the independent reference.
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import {
  type ColumnInput, type ProfileRequest, LEVEL_FIELDS, buildColumn, computeProfile
} from '../../src/atmosphere/index.js'
import { repoUrl } from '../helpers/paths.js'

interface Case {
  name: string
  file: string
  request: ProfileRequest & { latitude: number, longitude: number }
  expected: {
    sampled_latitude: number
    sampled_longitude: number
    model_ground_elevation_m_msl: number
    ground_elevation_m_msl: number
    coverage: Record<string, number>
    levels?: Array<Record<string, number>>
    error?: string
  }
}
interface RawColumn extends ColumnInput {
  name: string
  file: string
  sampled_latitude: number
  sampled_longitude: number
}

function load<T> (name: string): T {
  return JSON.parse(readFileSync(repoUrl(`test/fixtures/profiles/${name}`), 'utf8')) as T
}

/** README tolerance: 1e-5 relative, or near zero 1e-10 kg/kg for q and 1e-4 for anything else. */
function close (actual: number, expected: number, field: string): boolean {
  const absolute = field === 'specific_humidity_kg_kg' ? 1e-10 : 1e-4
  const diff = Math.abs(actual - expected)
  return diff <= absolute || diff <= 1e-5 * Math.abs(expected)
}

function checkNumber (tt: Test, actual: number, expected: number, what: string, field: string): void {
  tt.ok(close(actual, expected, field), `${what}: ${actual} vs ${expected}`)
}

for (const [casesFile, columnsFile, source] of [
  ['cases.json', 'columns.json', 'rh_inverted_ncep_upp'],
  ['cases-spfh.json', 'columns-spfh.json', 'spfh']
] as const) {
  const cases = load<Case[]>(casesFile)
  const columns = load<RawColumn[]>(columnsFile)

  t.test(casesFile, async t => {
    t.equal(columns.length, cases.length, 'one raw column per case')
    t.equal(cases.filter(c => c.expected.error === 'outside_vertical_range').length, 1, 'includes the 409 case')
    for (const c of cases) {
      t.test(c.name, async t => {
        const raw = columns.find(col => col.name === c.name)
        if (raw === undefined) throw new Error(`no raw column for ${c.name}`)
        t.equal(raw.file, c.file)
        // The script picked the point by docs/DESIGN.md §3's rounding; the case records the same point.
        t.equal(raw.sampled_latitude, c.expected.sampled_latitude)
        t.equal(raw.sampled_longitude, c.expected.sampled_longitude)

        const column = buildColumn(raw)
        t.equal(column.specific_humidity_source, source)
        const result = computeProfile(column, c.request)
        if (result.ok === false && result.error === 'unusable_source_column') throw new Error(result.detail)

        const e = c.expected
        checkNumber(t, result.model_ground_elevation_m_msl, e.model_ground_elevation_m_msl, 'model ground', 'ground')
        checkNumber(t, result.ground_elevation_m_msl, e.ground_elevation_m_msl, 'ground', 'ground')
        t.equal(result.ground_source, c.request.ground_elevation_m_msl == null ? 'model' : 'caller')
        t.equal(Object.keys(result.coverage).sort().join(), Object.keys(e.coverage).sort().join())
        for (const [k, v] of Object.entries(e.coverage)) {
          checkNumber(t, result.coverage[k as keyof typeof result.coverage], v, `coverage.${k}`, k)
        }

        if (e.error !== undefined) {
          t.equal(result.ok, false)
          t.equal(result.ok === false && result.error, e.error)
          return
        }
        if (!result.ok) throw new Error(`unexpected ${result.error}`)
        const levels = e.levels ?? []
        t.equal(result.levels.length, levels.length)
        levels.forEach((want, k) => {
          const got = result.levels[k]
          t.same(Object.keys(got), [...LEVEL_FIELDS], 'exactly the AtmosphereLevel fields')
          t.same(Object.keys(want).sort(), [...LEVEL_FIELDS].sort(), 'golden lists every field')
          for (const f of LEVEL_FIELDS) checkNumber(t, got[f], want[f], `levels[${k}].${f}`, f)
        })
      })
    }
  })
}
