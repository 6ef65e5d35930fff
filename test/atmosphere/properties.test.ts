// Property tests over random columns (seeded, so a failure reproduces): level hits, bounds,
// monotone pressure, physical signs.
import t from 'tap'
import { type LevelInput, buildColumn, computeProfile, type ProfileResult } from '../../src/atmosphere/index.js'

// mulberry32: small, deterministic.
function rng (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

function randomColumn (r: () => number): { surface: number, levels: LevelInput[] } {
  const n = 2 + Math.floor(r() * 40)
  const rhOnly = r() < 0.5
  let h = -300 + r() * 2300
  let p = 101000 + r() * 4000
  const levels: LevelInput[] = []
  for (let k = 0; k < n; k++) {
    levels.push({
      pressure_pa: Math.fround(p),
      hgt_gpm: Math.fround(h),
      tmp_k: Math.fround(180 + r() * 140),
      ugrd_ms: Math.fround(-80 + r() * 160),
      vgrd_ms: Math.fround(-80 + r() * 160),
      // RH < 100: where NCEP's e_s reaches p (hot, thin air) the design's inversion (docs/DESIGN.md §4) gives
      // q = RH/100.
      ...(rhOnly ? { rh_pct: Math.fround(r() * 99.9) } : { spfh_kg_kg: Math.fround(r() * 0.03) })
    })
    h += 20 + r() * 3000
    p *= 0.5 + r() * 0.48
  }
  for (let k = n - 1; k > 0; k--) { // shuffle: file order is not height order
    const j = Math.floor(r() * (k + 1));
    [levels[k], levels[j]] = [levels[j], levels[k]]
  }
  // Terrain usually below the column, sometimes cutting off a few levels.
  const surface = r() < 0.7 ? -400 : -300 + r() * 4000
  return { surface, levels }
}

function ok (r: ProfileResult): Extract<ProfileResult, { ok: true }> {
  if (!r.ok) throw new Error(r.error)
  return r
}

function within (x: number, a: number, b: number): boolean {
  const slack = 4 * Number.EPSILON * Math.max(Math.abs(a), Math.abs(b))
  return x >= Math.min(a, b) - slack && x <= Math.max(a, b) + slack
}

const CASES = 300

t.test('random columns', async t => {
  const r = rng(20200804)
  let failures = 0
  const fail = (msg: string): void => { failures++; if (failures < 10) t.fail(msg) }
  let checked = 0
  for (let c = 0; c < CASES; c++) {
    const { surface, levels } = randomColumn(r)
    const col = buildColumn({ surface_hgt_gpm: surface, levels })
    if (col.count === 0) continue
    const zs = [...col.z_m.subarray(0, col.count)]

    // 1. At a level height the answer is that level.
    const atLevels = ok(computeProfile(col, { altitudes_m: zs, altitude_reference: 'msl' }))
    atLevels.levels.forEach((l, k) => {
      if (l.wind_u_ms !== col.u_ms[k] || l.wind_v_ms !== col.v_ms[k] || l.temperature_k !== col.t_k[k] ||
          l.specific_humidity_kg_kg !== col.q_kg_kg[k] || l.pressure_pa !== col.pressure_pa[k]) {
        fail(`case ${c} level ${k} not returned exactly`)
      }
    })
    if (col.count < 2) continue

    // 2. Between levels: bounded by the neighbours; pressure falls with height; physical signs.
    const top = zs[zs.length - 1]
    const heights = Array.from({ length: 32 }, () => zs[0] + r() * (top - zs[0])).sort((a, b) => a - b)
    const res = ok(computeProfile(col, { altitudes_m: heights, altitude_reference: 'msl' }))
    res.levels.forEach((l, k) => {
      checked++
      const z = heights[k]
      let i = 0
      while (i < col.count - 2 && zs[i + 1] <= z) i++
      const pairs: Array<[string, number, Float64Array]> = [
        ['u', l.wind_u_ms, col.u_ms], ['v', l.wind_v_ms, col.v_ms], ['T', l.temperature_k, col.t_k],
        ['q', l.specific_humidity_kg_kg, col.q_kg_kg], ['p', l.pressure_pa, col.pressure_pa]
      ]
      for (const [name, x, arr] of pairs) {
        if (!within(x, arr[i], arr[i + 1])) fail(`case ${c}: ${name}=${x} outside [${arr[i]}, ${arr[i + 1]}]`)
      }
      if (k > 0) {
        const prev = res.levels[k - 1].pressure_pa
        if (l.pressure_pa > prev || (z - heights[k - 1] > 1 && !(l.pressure_pa < prev))) {
          fail(`case ${c}: pressure does not fall with height at ${z}`)
        }
      }
      if (!(l.density_kg_m3 > 0)) fail(`case ${c}: density ${l.density_kg_m3}`)
      if (!(l.relative_humidity_pct >= 0)) fail(`case ${c}: RH ${l.relative_humidity_pct}`)
      if (!(l.specific_humidity_kg_kg >= 0 && l.specific_humidity_kg_kg < 1)) {
        fail(`case ${c}: q ${l.specific_humidity_kg_kg}`)
      }
      if (!(l.temperature_k > 0 && l.pressure_pa > 0 && l.wind_speed_ms >= 0)) fail(`case ${c}: sign`)
      const d = l.wind_direction_deg
      if (!(d >= 0 && d < 360)) fail(`case ${c}: direction ${d}`)
      // The from-direction points back against the wind vector.
      const rad = d * Math.PI / 180
      if (Math.abs(-l.wind_speed_ms * Math.sin(rad) - l.wind_u_ms) > 1e-9 ||
          Math.abs(-l.wind_speed_ms * Math.cos(rad) - l.wind_v_ms) > 1e-9) {
        fail(`case ${c}: direction ${d} disagrees with (${l.wind_u_ms}, ${l.wind_v_ms})`)
      }
    })
  }
  t.equal(failures, 0, 'no property failed')
  t.ok(checked > CASES * 20, `${checked} interpolated levels checked`)
})
