import { EPSILON, NCEP_EPSILON } from './constants.js'
import { ncepSaturationVapourPressure, saturationVapourPressureLiquid } from './saturation.js'

/**
 * Specific humidity (kg/kg) from a GFS RH (%), by inverting NCEP UPP's `CALRH_GFS` rather than our
 * own RH definition, so the q we interpolate is the one the model's post-processor started from:
 * e′ = min(e_ncep(T), p), q_s = ε_n·e′ / (p − (1 − ε_n)·e′), q = RH/100 · q_s.
 */
export function specificHumidityFromNcepRh (rhPct: number, tK: number, pPa: number): number {
  const e = Math.min(ncepSaturationVapourPressure(tK), pPa)
  const qs = (NCEP_EPSILON * e) / (pPa - (1 - NCEP_EPSILON) * e)
  return (rhPct / 100) * qs
}

/** Vapour pressure (Pa) of air with specific humidity q at pressure p: e = q·p / (ε + (1 − ε)·q). */
export function vapourPressure (qKgKg: number, pPa: number): number {
  return (qKgKg * pPa) / (EPSILON + (1 - EPSILON) * qKgKg)
}

/** Relative humidity over liquid water (%), Murphy & Koop e_s. Not capped: it may exceed 100. */
export function relativeHumidityLiquid (qKgKg: number, pPa: number, tK: number): number {
  return (100 * vapourPressure(qKgKg, pPa)) / saturationVapourPressureLiquid(tK)
}

/** Murphy & Koop's liquid formula holds from 123 K to 332 K; a dew point is sought there. */
const DEW_POINT_RANGE_K = [123, 332] as const

/**
 * Dew point over liquid water (K): the temperature whose Murphy & Koop e_s equals the vapour
 * pressure of q at p, so that RH = 100 % exactly when it equals the temperature. e_s rises
 * monotonically, so bisection finds it to float precision; NaN for dry air or outside the range.
 */
export function dewPointLiquid (qKgKg: number, pPa: number): number {
  const e = vapourPressure(qKgKg, pPa)
  let lo: number = DEW_POINT_RANGE_K[0]
  let hi: number = DEW_POINT_RANGE_K[1]
  if (!(e > saturationVapourPressureLiquid(lo)) || !(e <= saturationVapourPressureLiquid(hi))) return NaN
  for (let k = 0; k < 60 && hi - lo > 1e-12; k++) {
    const mid = (lo + hi) / 2
    if (saturationVapourPressureLiquid(mid) < e) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}
