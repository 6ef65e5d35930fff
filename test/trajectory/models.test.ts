// The small pure models of docs/DESIGN.md §7 and the ensemble's draws and statistics.
import t from 'tap'
import {
  descentRate, greatCircleKm, latitudeRate, longitudeRate, nasaDensity, wrapLongitude
} from '../../src/trajectory/models.js'
import { landingSpread, members, normals, quantile, uniforms } from '../../src/trajectory/ensemble.js'

t.test('the NASA standard atmosphere as Tawhiri computes it', async (t) => {
  // values from the formula by hand: T °C, p kPa, ρ = p / (0.2869 (T + 273.1))
  const sea = 101.29 * ((15.04 + 273.1) / 288.08) ** 5.256 / (0.2869 * (15.04 + 273.1))
  t.ok(Math.abs(nasaDensity(0) - sea) < 1e-15)
  t.ok(Math.abs(nasaDensity(0) - 1.225) < 2e-3, 'about 1.225 kg/m³ at sea level')
  const mid = 22.65 * Math.exp(1.73 - 0.000157 * 15_000) / (0.2869 * (-56.46 + 273.1))
  t.ok(Math.abs(nasaDensity(15_000) - mid) < 1e-15, 'the isothermal layer')
  const t30 = -131.21 + 0.00299 * 30_000
  const high = 2.488 * ((t30 + 273.1) / 216.6) ** -11.388 / (0.2869 * (t30 + 273.1))
  t.ok(Math.abs(nasaDensity(30_000) - high) < 1e-15, 'above 25 km')
  // the layer limits belong to the layer below (Tawhiri's `h > 11000`, `h > 25000`)
  const t11 = 15.04 - 0.00649 * 11_000
  t.equal(nasaDensity(11_000), 101.29 * ((t11 + 273.1) / 288.08) ** 5.256 / (0.2869 * (t11 + 273.1)))
  t.equal(nasaDensity(25_000), 22.65 * Math.exp(1.73 - 0.000157 * 25_000) / (0.2869 * (-56.46 + 273.1)))
})

t.test('the descent drag: the sea-level rate where ρ = 1.1045², faster in thin air', async (t) => {
  t.equal(descentRate(5, 1.1045 ** 2), -5)
  t.ok(descentRate(5, nasaDensity(30_000)) < -30)
})

t.test('the wind equations over R = 6 371 009 m', async (t) => {
  t.equal(latitudeRate(10, 0), 180 / Math.PI * 10 / 6_371_009)
  t.equal(longitudeRate(10, 60, 1000), 180 / Math.PI * 10 / (6_372_009 * Math.cos(Math.PI / 3)))
})

t.test('longitudes in [0, 360) and great circles', async (t) => {
  t.same([wrapLongitude(-1), wrapLongitude(360), wrapLongitude(725), wrapLongitude(0)], [359, 0, 5, 0])
  t.ok(Math.abs(greatCircleKm(0, 0, 0, 1) - 6371.009 * Math.PI / 180) < 1e-9)
  t.ok(Math.abs(greatCircleKm(10, 179.5, 10, -179.5) - greatCircleKm(10, 0, 10, 1)) < 1e-9, 'across 180°')
})

t.test('seeded draws repeat; normals are standard', async (t) => {
  const a = uniforms(42)
  const b = uniforms(42)
  const xs = Array.from({ length: 5 }, a)
  t.same(Array.from({ length: 5 }, b), xs)
  t.ok(xs.every((x) => x >= 0 && x < 1))
  const draw = normals(7)
  const n = 200_000
  let s = 0
  let s2 = 0
  for (let k = 0; k < n; k++) { const x = draw(); s += x; s2 += x * x }
  t.ok(Math.abs(s / n) < 0.01 && Math.abs(s2 / n - 1) < 0.01, `mean ${s / n}, variance ${s2 / n}`)
})

t.test('members: 0 nominal, the others perturbed and kept valid', async (t) => {
  const nominal = { ascentRate: 5, burstAltitude: 30_000, descentRate: 5 }
  const wide = members(nominal, { members: 500, ascentRateSd: 4, burstAltitudeSd: 40_000, descentRateSd: 4, seed: 3 },
    100)
  t.same(wide[0], nominal)
  t.equal(wide.length, 500)
  t.ok(wide.every((m) => m.ascentRate > 0 && m.descentRate > 0 && m.burstAltitude > 100), 'valid despite wide spreads')
  t.same(members(nominal, { members: 3, ascentRateSd: 0, burstAltitudeSd: 0, descentRateSd: 0, seed: 1 }, 0),
    [nominal, nominal, nominal], 'no spread, no perturbation')
  // a bound no draw can meet keeps the nominal value
  const stuck = members(nominal, { members: 2, ascentRateSd: 0, burstAltitudeSd: 1e-9, descentRateSd: 0, seed: 1 },
    40_000)
  t.equal(stuck[1].burstAltitude, 30_000)
})

t.test('landing spread: mean position by unit vectors, distance quantiles', async (t) => {
  t.equal(landingSpread([], []), null)
  const s = landingSpread([0, 0, 0, 0], [359.9, 0.1, 359.95, 0.05])
  t.ok(s !== null)
  if (s === null) return
  t.ok(Math.abs(s.mean_latitude) < 1e-12)
  t.ok(s.mean_longitude < 1e-9 || s.mean_longitude > 360 - 1e-9, `mean across 0° (${s.mean_longitude})`)
  t.ok(Math.abs(s.max_distance_km - greatCircleKm(0, 0, 0, 0.1)) < 1e-6)
  t.equal(quantile([1, 2, 3, 4], 0.5), 2.5)
  t.equal(quantile([1, 2, 3, 4, 5], 0.95), 4.8)
})
