// Our plain AtmosphereLevel / VerticalCoverage must be what the contract's schemas accept: same
// fields, and every output of the golden columns inside the bounds of docs/INTERFACE.md §2.3, §2.4.
import { readFileSync } from 'node:fs'
import t from 'tap'
import * as contract from '../../src/contract/schemas.js'
import { validatorFor } from '../../src/contract/validate.js'
import {
  type AtmosphereLevel, type ColumnInput, LEVEL_FIELDS, type VerticalCoverage, buildColumn, computeProfile
} from '../../src/atmosphere/index.js'
import { repoUrl } from '../helpers/paths.js'

// Compile-time: the two declarations are mutually assignable (checked when tests are typechecked).
const levelBothWays: [AtmosphereLevel, contract.AtmosphereLevel] =
  [{} as contract.AtmosphereLevel, {} as AtmosphereLevel]
const coverageBothWays: [VerticalCoverage, contract.VerticalCoverage] =
  [{} as contract.VerticalCoverage, {} as VerticalCoverage]
void levelBothWays; void coverageBothWays

t.test('field lists agree with the contract', async t => {
  t.same([...LEVEL_FIELDS].sort(), Object.keys(contract.AtmosphereLevel.properties).sort())
})

t.test('golden outputs validate against the contract schemas', async t => {
  const level = validatorFor(contract.AtmosphereLevel)
  const coverage = validatorFor(contract.VerticalCoverage)
  for (const name of ['cases.json', 'cases-spfh.json']) {
    const read = (f: string) => JSON.parse(readFileSync(repoUrl(`test/fixtures/profiles/${f}`), 'utf8'))
    const cases = read(name) as Array<{
      name: string
      request: { altitudes_m: number[], altitude_reference: 'agl' | 'msl', ground_elevation_m_msl?: number }
    }>
    const columns = read(name.replace('cases', 'columns')) as Array<ColumnInput & { name: string }>
    for (const c of cases) {
      const col = columns.find(x => x.name === c.name)
      if (col === undefined) throw new Error(c.name)
      // Also probe every kept level height, so low-level humid air and the column top are validated.
      const built = buildColumn(col)
      const r = computeProfile(built, {
        ...c.request,
        altitudes_m: [...built.z_m.subarray(0, built.count)],
        altitude_reference: 'msl'
      })
      if (!r.ok) throw new Error(r.error)
      t.ok(coverage(r.coverage), `${c.name} coverage`)
      const bad = r.levels.filter(l => !level(l))
      t.same(bad, [], `${c.name}: ${r.levels.length} levels valid`)
    }
  }
})
