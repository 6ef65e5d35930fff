// Worked or published values for each formula of docs/DESIGN.md §4.
import t, { type Test } from 'tap'
import {
  EARTH_RADIUS_M, EPSILON, NCEP_EPSILON, dewPointLiquid, geometricHeight, moistAirDensity, ncepSaturationIce,
  ncepSaturationLiquid, ncepSaturationVapourPressure, relativeHumidityLiquid, saturationVapourPressureLiquid,
  specificHumidityFromNcepRh, vapourPressure, windDirectionFrom, windSpeed
} from '../../src/atmosphere/index.js'

function near (t: Test, actual: number, expected: number, rel: number, what: string): void {
  t.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `${what}: ${actual} ≈ ${expected}`)
}

t.test('geometric height on R = 6 371 229 m', async t => {
  t.equal(EARTH_RADIUS_M, 6371229)
  t.equal(geometricHeight(0), 0)
  // z = R·H/(R − H): H = R/2 gives R, H = R/3 gives R/2.
  near(t, geometricHeight(EARTH_RADIUS_M / 2), EARTH_RADIUS_M, 1e-15, 'H = R/2')
  near(t, geometricHeight(EARTH_RADIUS_M / 3), EARTH_RADIUS_M / 2, 1e-15, 'H = R/3')
  near(t, geometricHeight(10000), 10015.720232678308, 1e-14, '10 000 gpm')
  t.ok(geometricHeight(-50) < -49.99 && geometricHeight(-50) > -50, 'below the geoid: slightly less deep')
})

t.test('Murphy & Koop (2005) eq. 10, published check values', async t => {
  // Published to the digits shown: agree within half a unit of the last one.
  t.ok(Math.abs(saturationVapourPressureLiquid(273.16) - 611.657) <= 0.0005, 'e_s(273.16 K) = 611.657 Pa')
  t.ok(Math.abs(saturationVapourPressureLiquid(300) - 3536.76) <= 0.005, 'e_s(300 K) = 3536.76 Pa')
  near(t, saturationVapourPressureLiquid(273.16), 611.657043644328, 1e-13, 'e_s(273.16 K), more digits')
})

t.test('NCEP FPVSNEW evaluated directly', async t => {
  // At the triple point both branches reduce to 610.78 Pa: (T_t/T)^a = 1 and exp(b·0) = 1.
  t.equal(ncepSaturationLiquid(273.16), 610.78)
  t.equal(ncepSaturationIce(273.16), 610.78)
  t.equal(ncepSaturationVapourPressure(273.16), 610.78)
  t.equal(ncepSaturationVapourPressure(300), ncepSaturationLiquid(300), 'liquid above the triple point')
  t.equal(ncepSaturationVapourPressure(253.16), ncepSaturationIce(253.16), 'w = 0 at 253.16 K: all ice')
  t.equal(ncepSaturationVapourPressure(230), ncepSaturationIce(230), 'ice below 253.16 K')
  // Halfway through the blend NCEP's e is the mean of its liquid and ice values.
  near(
    t,
    ncepSaturationVapourPressure(263.16),
    (ncepSaturationLiquid(263.16) + ncepSaturationIce(263.16)) / 2,
    1e-15,
    'e(263.16 K)'
  )
  t.ok(ncepSaturationIce(263.16) < ncepSaturationLiquid(263.16), 'ice saturates lower than supercooled water')
  // NCEP's liquid curve agrees with Murphy–Koop to a fraction of a percent at 300 K: a sanity check on a, b.
  near(t, ncepSaturationLiquid(300), saturationVapourPressureLiquid(300), 5e-3, 'NCEP liquid vs MK at 300 K')
})

t.test('q from RH by inverting CALRH_GFS', async t => {
  t.equal(NCEP_EPSILON, 287.05 / 461.5)
  // At 273.16 K e_ncep = 610.78 Pa: q_s = ε_n·610.78 / (1e5 − (1 − ε_n)·610.78).
  near(
    t,
    specificHumidityFromNcepRh(100, 273.16, 100000),
    0.0038078033069688672,
    1e-14,
    'saturated at 1000 hPa, 273.16 K'
  )
  near(t, specificHumidityFromNcepRh(50, 273.16, 100000), 0.0038078033069688672 / 2, 1e-14, 'half saturated')
  // Where e_ncep exceeds p, e′ = p and q_s = 1, so q = RH/100.
  t.equal(specificHumidityFromNcepRh(50, 273.16, 500), 0.5)
  t.equal(specificHumidityFromNcepRh(0, 300, 90000), 0)
})

t.test('RH over liquid from q', async t => {
  t.equal(EPSILON, 0.6219569)
  t.equal(vapourPressure(0, 90000), 0)
  t.equal(vapourPressure(1, 90000), 90000, 'pure vapour: e = p')
  // q at exactly Murphy–Koop saturation gives 100 %.
  const p = 85000
  const tK = 285
  const es = saturationVapourPressureLiquid(tK)
  const qs = (EPSILON * es) / (p - (1 - EPSILON) * es)
  near(t, relativeHumidityLiquid(qs, p, tK), 100, 1e-13, 'saturated')
  near(
    t,
    relativeHumidityLiquid(qs * 1.1, p, tK),
    100 * 1.1 * (EPSILON + (1 - EPSILON) * qs) / (EPSILON + (1 - EPSILON) * qs * 1.1),
    1e-13,
    'supersaturated, not capped'
  )
  t.ok(relativeHumidityLiquid(qs * 1.1, p, tK) > 100)
  t.equal(relativeHumidityLiquid(0, p, tK), 0)
})

t.test('dew point over liquid: where q at p saturates', async t => {
  const p = 85000
  for (const tK of [230, 263.15, 285, 303]) {
    const es = saturationVapourPressureLiquid(tK)
    const qs = (EPSILON * es) / (p - (1 - EPSILON) * es)
    near(t, dewPointLiquid(qs, p), tK, 1e-12, `saturated at ${tK} K: dew point = temperature`)
    near(t, relativeHumidityLiquid(qs, p, dewPointLiquid(qs, p)), 100, 1e-10, `RH at the dew point (${tK} K)`)
  }
  // Bolton's (1980) worked figure: e = 1227 Pa has a dew point near 10 °C.
  const q = EPSILON * 1227.9 / (100000 - (1 - EPSILON) * 1227.9)
  t.ok(Math.abs(dewPointLiquid(q, 100000) - 283.15) < 0.05, 'e = 1227.9 Pa: about 10 °C')
  t.ok(Number.isNaN(dewPointLiquid(0, p)), 'dry air has no dew point')
  t.ok(Number.isNaN(dewPointLiquid(1, p)), 'above the formula\'s range: not a number')
})

t.test('moist-air density', async t => {
  near(t, moistAirDensity(100000, 283.15, 0.0234375), 1.2131, 5e-5, '1000 hPa, 10 °C, q = 0.0234375')
  near(t, moistAirDensity(100000, 283.15, 0.0234375), 1.2130714612144813, 1e-14, 'more digits')
  near(t, moistAirDensity(101325, 288.15, 0), 101325 / (287.04749 * 288.15), 1e-15, 'dry air')
  t.ok(moistAirDensity(100000, 283.15, 0.02) < moistAirDensity(100000, 283.15, 0), 'vapour is lighter than dry air')
})

t.test('wind speed and from-direction', async t => {
  t.equal(windSpeed(3, -4), 5)
  t.equal(windSpeed(0, 0), 0)
  t.equal(windDirectionFrom(0, -5), 0, 'from the north')
  t.ok(Object.is(windDirectionFrom(0, -5), 0), 'and not −0')
  t.ok(Object.is(windDirectionFrom(-0, -5), 0), '−0 u is still 0')
  t.equal(windDirectionFrom(5, 0), 270, 'westerly')
  t.equal(windDirectionFrom(-5, 0), 90, 'easterly')
  t.equal(windDirectionFrom(0, 5), 180, 'southerly')
  t.equal(windDirectionFrom(-0, 5), 180)
  near(t, windDirectionFrom(-3, -3), 45, 1e-15, 'north-easterly')
  near(t, windDirectionFrom(3, -3), 315, 1e-15, 'north-westerly')
  t.equal(windDirectionFrom(0, 0), 0, 'calm')
  t.equal(windDirectionFrom(-0, -0), 0, 'calm with signed zeros')
  // A hair west of north: atan2 gives about −1e-299°, + 360 rounds to 360, which must become 0.
  t.equal(windDirectionFrom(1e-300, -5), 0, 'never 360')
  const d = windDirectionFrom(1e-9, -5)
  t.ok(d > 359.99 && d < 360, 'a small westward component stays just below 360')
})
