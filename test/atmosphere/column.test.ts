// Column rules, coverage, interpolation and the profile entry point on small hand-made columns.
import t from 'tap'
import {
  LEVEL_FIELDS, LEVEL_FIELD_COUNT, type LevelInput, buildColumn, computeProfile, createColumn, fillColumn,
  findLevel, geometricHeight, isWithinCoverage, specificHumidityFromNcepRh, toAgl, toMsl, writeLevel, writeLevels
} from '../../src/atmosphere/index.js'

const lvl = (pressure_pa: number, hgt_gpm: number, extra: Partial<LevelInput> = {}): LevelInput => ({
  pressure_pa,
  hgt_gpm,
  tmp_k: 280 - hgt_gpm / 200,
  ugrd_ms: hgt_gpm / 100,
  vgrd_ms: -hgt_gpm / 200,
  spfh_kg_kg: 0.01 - hgt_gpm / 1e6,
  ...extra
})
// Deliberately out of order, as GRIB files can be.
const LEVELS: LevelInput[] = [lvl(70000, 3000), lvl(100000, 100), lvl(85000, 1500), lvl(50000, 5500)]
const SURFACE = 50

function must<T extends { ok: boolean }> (r: T): Extract<T, { ok: true }> {
  if (!r.ok) throw new Error(`unexpected ${JSON.stringify(r)}`)
  return r as Extract<T, { ok: true }>
}

t.test('column: sorted by geometric height, q formed per level', async t => {
  const c = buildColumn({ surface_hgt_gpm: SURFACE, levels: LEVELS })
  t.equal(c.count, 4)
  t.same([...c.pressure_pa.subarray(0, 4)], [100000, 85000, 70000, 50000])
  t.same([...c.z_m.subarray(0, 4)], [100, 1500, 3000, 5500].map(geometricHeight))
  t.same([...c.ln_pressure.subarray(0, 4)], [100000, 85000, 70000, 50000].map(Math.log))
  t.equal(c.model_ground_elevation_m_msl, geometricHeight(SURFACE))
  t.equal(c.specific_humidity_source, 'spfh')
  t.equal(c.q_kg_kg[0], 0.01 - 100 / 1e6)
})

t.test('column: incomplete levels are dropped', async t => {
  for (const field of ['hgt_gpm', 'tmp_k', 'ugrd_ms', 'vgrd_ms', 'spfh_kg_kg'] as const) {
    for (const bad of [null, NaN, Infinity, undefined]) {
      const levels = LEVELS.map((l, k) => k === 2 ? { ...l, [field]: bad } : l)
      const c = buildColumn({ surface_hgt_gpm: SURFACE, levels })
      t.equal(c.count, 3, `${field} = ${bad}`)
      t.notOk([...c.pressure_pa.subarray(0, 3)].includes(85000))
    }
  }
})

t.test('column: levels strictly below the model terrain are dropped', async t => {
  const below = buildColumn({ surface_hgt_gpm: 1500.5, levels: LEVELS })
  t.same([...below.pressure_pa.subarray(0, below.count)], [70000, 50000])
  const on = buildColumn({ surface_hgt_gpm: 1500, levels: LEVELS })
  t.same([...on.pressure_pa.subarray(0, on.count)], [85000, 70000, 50000], 'a level exactly on the terrain stays')
})

t.test('column: humidity source is chosen once per column', async t => {
  const rhOnly = LEVELS.map(l => ({ ...l, spfh_kg_kg: undefined, rh_pct: 80 }))
  const c = buildColumn({ surface_hgt_gpm: SURFACE, levels: rhOnly })
  t.equal(c.specific_humidity_source, 'rh_inverted_ncep_upp')
  t.equal(c.count, 4)
  t.equal(c.q_kg_kg[0], specificHumidityFromNcepRh(80, 280 - 100 / 200, 100000))

  const both = LEVELS.map(l => ({ ...l, rh_pct: 80 }))
  const b = buildColumn({ surface_hgt_gpm: SURFACE, levels: both })
  t.equal(b.specific_humidity_source, 'spfh', 'SPFH wins over RH')
  t.equal(b.q_kg_kg[0], 0.01 - 100 / 1e6)

  // One level has RH but no SPFH: it is dropped rather than mixing two kinds of q.
  const mixed = both.map((l, k) => k === 2 ? { ...l, spfh_kg_kg: null } : l)
  const m = buildColumn({ surface_hgt_gpm: SURFACE, levels: mixed })
  t.equal(m.specific_humidity_source, 'spfh')
  t.equal(m.count, 3)

  const noHumidity = buildColumn({ surface_hgt_gpm: SURFACE, levels: LEVELS.map(l => ({ ...l, spfh_kg_kg: null })) })
  t.equal(noHumidity.count, 0)
  const r = computeProfile(noHumidity, { altitudes_m: [1000], altitude_reference: 'msl' })
  t.match(r, { ok: false, error: 'unusable_source_column', detail: /no pressure level/ })

  const negative = buildColumn({ surface_hgt_gpm: SURFACE, levels: LEVELS.map(l => ({ ...l, spfh_kg_kg: -1e-7 })) })
  t.equal(negative.q_kg_kg[0], 0, 'packing noise below zero becomes 0')
})

t.test('column: caller bugs throw', async t => {
  t.throws(() => buildColumn({ surface_hgt_gpm: 0, levels: [lvl(0, 100)] }), RangeError)
  t.throws(() => buildColumn({ surface_hgt_gpm: 0, levels: [lvl(NaN, 100)] }), RangeError)
  t.throws(() => buildColumn({ surface_hgt_gpm: 0, levels: [lvl(Infinity, 100)] }), RangeError)
  const small = createColumn(1)
  t.throws(() => fillColumn({
    level_count: 2,
    surface_hgt_gpm: 0,
    pressure_pa: { data: [1, 2], offset: 0, stride: 1 },
    hgt_gpm: { data: [1, 2], offset: 0, stride: 1 },
    tmp_k: { data: [1, 2], offset: 0, stride: 1 },
    ugrd_ms: { data: [1, 2], offset: 0, stride: 1 },
    vgrd_ms: { data: [1, 2], offset: 0, stride: 1 },
    spfh_kg_kg: null,
    rh_pct: null
  }, small), RangeError)
})

t.test('column: no humidity series at all', async t => {
  const s = { data: [100], offset: 0, stride: 1 }
  const c = fillColumn({
    level_count: 1, surface_hgt_gpm: 0, pressure_pa: { data: [50000], offset: 0, stride: 1 },
    hgt_gpm: s, tmp_k: s, ugrd_ms: s, vgrd_ms: s, spfh_kg_kg: null, rh_pct: null
  }, createColumn(1))
  t.equal(c.count, 0)
})

t.test('column from a Float32Array tile, reusing one column', async t => {
  // Tile [variable][level][point]: 6 variables, 4 levels, 3 grid points; our point is index 1.
  const vars = ['hgt_gpm', 'tmp_k', 'ugrd_ms', 'vgrd_ms', 'spfh_kg_kg', 'rh_pct'] as const
  const nLev = LEVELS.length
  const nPt = 3
  const tile = new Float32Array(vars.length * nLev * nPt).fill(NaN)
  vars.forEach((v, vi) => LEVELS.forEach((l, k) => {
    for (let p = 0; p < nPt; p++) tile[(vi * nLev + k) * nPt + p] = p === 1 ? (l[v] ?? NaN) : 1e6
  }))
  const seriesOf = (vi: number) => ({ data: tile, offset: vi * nLev * nPt + 1, stride: nPt })
  const column = createColumn(41)
  const arrays = column.z_m
  const src = {
    level_count: nLev,
    surface_hgt_gpm: SURFACE,
    pressure_pa: { data: new Float32Array(LEVELS.map(l => l.pressure_pa)), offset: 0, stride: 1 },
    hgt_gpm: seriesOf(0),
    tmp_k: seriesOf(1),
    ugrd_ms: seriesOf(2),
    vgrd_ms: seriesOf(3),
    spfh_kg_kg: seriesOf(4),
    rh_pct: seriesOf(5)
  }
  fillColumn(src, column)
  t.equal(column.z_m, arrays, 'same buffers reused')
  // Same as the plain-object path fed with the float32-rounded values.
  const f32 = LEVELS.map(l => ({
    ...l,
    hgt_gpm: Math.fround(l.hgt_gpm!),
    tmp_k: Math.fround(l.tmp_k!),
    ugrd_ms: Math.fround(l.ugrd_ms!),
    vgrd_ms: Math.fround(l.vgrd_ms!),
    spfh_kg_kg: Math.fround(l.spfh_kg_kg!)
  }))
  const plain = buildColumn({ surface_hgt_gpm: SURFACE, levels: f32 })
  t.equal(column.count, plain.count)
  for (const k of ['z_m', 'pressure_pa', 'ln_pressure', 'u_ms', 'v_ms', 't_k', 'q_kg_kg'] as const) {
    t.same([...column[k].subarray(0, column.count)], [...plain[k].subarray(0, plain.count)], k)
  }
  const out = new Float64Array(2 * LEVEL_FIELD_COUNT)
  writeLevels(column, [400, 2000], 'agl', column.model_ground_elevation_m_msl, out)
  t.equal(out[LEVEL_FIELD_COUNT], 2000)
  t.equal(out[LEVEL_FIELD_COUNT + 1], 2000 + column.model_ground_elevation_m_msl)

  // Refilling for a column with fewer usable levels shrinks count; stale entries are ignored.
  src.surface_hgt_gpm = 2000
  fillColumn(src, column)
  t.equal(column.count, 2)
  t.equal(column.z_m[0], plain.z_m[2])
})

t.test('findLevel: binary search for the level pair', async t => {
  const zs = new Float64Array([10, 20, 30, 40, 99])
  t.equal(findLevel(zs, 4, 5), 0, 'below')
  t.equal(findLevel(zs, 4, NaN), 0)
  t.equal(findLevel(zs, 4, 10), 0)
  t.equal(findLevel(zs, 4, 19.999), 0)
  t.equal(findLevel(zs, 4, 20), 1)
  t.equal(findLevel(zs, 4, 35), 2)
  t.equal(findLevel(zs, 4, 40), 3, 'top level, ignoring entries past count')
  t.equal(findLevel(zs, 4, 1000), 3)
  t.equal(findLevel(zs, 1, 10), 0)
})

t.test('interpolation: linear u, v, T, q and ln p in z; exact hits', async t => {
  const c = buildColumn({ surface_hgt_gpm: SURFACE, levels: LEVELS })
  const out = new Float64Array(LEVEL_FIELD_COUNT)
  const z0 = c.z_m[0]
  const z1 = c.z_m[1]
  const mid = (z0 + z1) / 2
  writeLevel(c, 123, mid, out, 0)
  t.equal(out[0], 123, 'AGL as given')
  t.equal(out[1], mid)
  t.ok(Math.abs(out[2] - (c.u_ms[0] + c.u_ms[1]) / 2) < 1e-12, 'u halfway')
  t.ok(Math.abs(out[6] - (c.t_k[0] + c.t_k[1]) / 2) < 1e-12, 'T halfway')
  t.ok(Math.abs(out[8] - (c.q_kg_kg[0] + c.q_kg_kg[1]) / 2) < 1e-15, 'q halfway')
  t.ok(Math.abs(out[7] - Math.sqrt(100000 * 85000)) < 1e-9, 'p is the geometric mean halfway in z')

  for (let k = 0; k < c.count; k++) {
    writeLevel(c, 0, c.z_m[k], out, 0)
    t.equal(out[7], c.pressure_pa[k], `level ${k}: its own pressure, exactly`)
    t.equal(out[2], c.u_ms[k])
    t.equal(out[6], c.t_k[k])
    t.equal(out[8], c.q_kg_kg[k])
  }
  // Beyond the column the end level is returned (coverage is checked before this is reached).
  writeLevel(c, 0, z0 - 10, out, 0)
  t.equal(out[7], c.pressure_pa[0])
  writeLevel(c, 0, 1e6, out, 0)
  t.equal(out[7], c.pressure_pa[c.count - 1])
})

t.test('profile: request order, both references, all fields', async t => {
  const c = buildColumn({ surface_hgt_gpm: SURFACE, levels: LEVELS })
  const ground = c.model_ground_elevation_m_msl
  const r = must(computeProfile(c, { altitudes_m: [3000, 500, 1200], altitude_reference: 'agl' }))
  t.same(r.levels.map(l => l.altitude_agl_m), [3000, 500, 1200])
  t.same(r.levels.map(l => l.altitude_msl_m), [3000 + ground, 500 + ground, 1200 + ground])
  t.same(Object.keys(r.levels[0]), [...LEVEL_FIELDS])
  t.match(r, {
    ground_source: 'model',
    supplied_ground_elevation_m_msl: null,
    ground_elevation_m_msl: ground,
    model_ground_elevation_m_msl: ground,
    specific_humidity_source: 'spfh'
  })

  const m = must(computeProfile(c, {
    altitudes_m: [3000 + ground, 500 + ground],
    altitude_reference: 'msl',
    ground_elevation_m_msl: null
  }))
  t.same(m.levels.map(l => l.altitude_msl_m), [3000 + ground, 500 + ground])
  t.ok(Math.abs(m.levels[0].altitude_agl_m - 3000) < 1e-9)
  t.ok(Math.abs(m.levels[0].pressure_pa - r.levels[0].pressure_pa) < 1e-9, 'same height, same answer')
  t.equal(toMsl(10, 'agl', 5), 15)
  t.equal(toMsl(10, 'msl', 5), 10)
  t.equal(toAgl(10, 'msl', 5), 5)
  t.equal(toAgl(10, 'agl', 5), 10)
})

t.test('profile: caller ground moves AGL, never the model terrain cut', async t => {
  const c = buildColumn({ surface_hgt_gpm: 1000, levels: LEVELS })
  t.equal(c.count, 3, 'the 100 gpm level is under the model terrain')
  const r = must(computeProfile(c, { altitudes_m: [200], altitude_reference: 'agl', ground_elevation_m_msl: 1400 }))
  t.match(r, {
    ground_source: 'caller',
    supplied_ground_elevation_m_msl: 1400,
    ground_elevation_m_msl: 1400,
    model_ground_elevation_m_msl: c.model_ground_elevation_m_msl
  })
  t.equal(r.levels[0].altitude_msl_m, 1600)
  t.equal(r.coverage.minimum_msl_m, c.z_m[0], 'coverage still starts at the lowest level above the model terrain')
  t.equal(r.coverage.minimum_agl_m, c.z_m[0] - 1400)

  // A caller ground far below the terrain does not bring back the dropped level.
  const low = computeProfile(c, { altitudes_m: [50], altitude_reference: 'agl', ground_elevation_m_msl: 0 })
  t.match(low, {
    ok: false,
    error: 'outside_vertical_range',
    coverage: { minimum_msl_m: c.z_m[0], minimum_agl_m: c.z_m[0] }
  })

  // A caller ground above the lowest level makes the AGL minimum negative.
  const high = must(computeProfile(c, { altitudes_m: [0], altitude_reference: 'agl', ground_elevation_m_msl: 2000 }))
  t.ok(high.coverage.minimum_agl_m < 0)
})

t.test('profile: 409 with coverage; limits themselves are served', async t => {
  const c = buildColumn({ surface_hgt_gpm: SURFACE, levels: LEVELS })
  const ground = c.model_ground_elevation_m_msl
  const r = computeProfile(c, { altitudes_m: [1000, 10, 1e5, NaN], altitude_reference: 'agl' })
  t.match(r, {
    ok: false,
    error: 'outside_vertical_range',
    coverage: {
      minimum_msl_m: c.z_m[0],
      maximum_msl_m: c.z_m[3],
      minimum_agl_m: c.z_m[0] - ground,
      maximum_agl_m: c.z_m[3] - ground
    },
    ground_source: 'model'
  })
  t.same(r.ok === false && r.error === 'outside_vertical_range' && r.outside_altitudes_m, [10, 1e5, NaN])

  const cov = must(computeProfile(c, { altitudes_m: [1000], altitude_reference: 'agl' })).coverage
  const agl = must(computeProfile(c, {
    altitudes_m: [cov.minimum_agl_m, cov.maximum_agl_m],
    altitude_reference: 'agl'
  }))
  t.equal(agl.levels[0].pressure_pa, 100000, 'bottom limit (AGL) is the bottom level')
  t.equal(agl.levels[1].pressure_pa, 50000, 'top limit (AGL) is the top level')
  const msl = must(computeProfile(c, {
    altitudes_m: [cov.maximum_msl_m, cov.minimum_msl_m],
    altitude_reference: 'msl'
  }))
  t.same(msl.levels.map(l => l.pressure_pa), [50000, 100000])
  t.notOk(isWithinCoverage(cov, cov.maximum_msl_m + 1e-9, 'msl'))
  t.notOk(isWithinCoverage(cov, cov.minimum_agl_m - 1e-9, 'agl'))
})

t.test('profile: single-level column and missing terrain', async t => {
  const one = buildColumn({ surface_hgt_gpm: SURFACE, levels: [lvl(85000, 1500)] })
  const z = one.z_m[0]
  const r = must(computeProfile(one, { altitudes_m: [z], altitude_reference: 'msl' }))
  t.equal(r.levels[0].pressure_pa, 85000)
  t.match(
    computeProfile(one, { altitudes_m: [z + 1], altitude_reference: 'msl' }),
    { ok: false, error: 'outside_vertical_range' }
  )

  const noTerrain = buildColumn({ surface_hgt_gpm: null, levels: LEVELS })
  t.match(
    computeProfile(noTerrain, { altitudes_m: [1000], altitude_reference: 'msl' }),
    { ok: false, error: 'unusable_source_column', detail: /terrain/ }
  )
})
