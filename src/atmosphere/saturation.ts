import {
  NCEP_C_I, NCEP_C_L, NCEP_C_V, NCEP_E_TRIPLE_PA, NCEP_L_F, NCEP_L_V, NCEP_R_V, NCEP_T_ICE_K,
  T_TRIPLE_K
} from './constants.js'

/**
 * Saturation vapour pressure over liquid water, Pa: Murphy & Koop (2005) eq. 10, valid 123–332 K.
 * Used for every RH we output (provenance `humidity_convention`).
 */
export function saturationVapourPressureLiquid (tK: number): number {
  const lnT = Math.log(tK)
  return Math.exp(
    54.842763 - 6763.22 / tK - 4.210 * lnT + 0.000367 * tK +
    Math.tanh(0.0415 * (tK - 218.8)) * (53.878 - 1331.22 / tK - 9.44523 * lnT + 0.014025 * tK)
  )
}

// FPVSNEW's exponents, from NCEP's constants (docs/DESIGN.md §4).
const A_LIQUID = -(NCEP_C_V - NCEP_C_L) / NCEP_R_V
const B_LIQUID = A_LIQUID + NCEP_L_V / (NCEP_R_V * T_TRIPLE_K)
const A_ICE = -(NCEP_C_V - NCEP_C_I) / NCEP_R_V
const B_ICE = A_ICE + (NCEP_L_V + NCEP_L_F) / (NCEP_R_V * T_TRIPLE_K)

/** NCEP's saturation vapour pressure over liquid water (FPVSNEW's liquid branch), Pa. */
export function ncepSaturationLiquid (tK: number): number {
  const tr = T_TRIPLE_K / tK
  return NCEP_E_TRIPLE_PA * Math.pow(tr, A_LIQUID) * Math.exp(B_LIQUID * (1 - tr))
}

/** NCEP's saturation vapour pressure over ice (FPVSNEW's ice branch), Pa. */
export function ncepSaturationIce (tK: number): number {
  const tr = T_TRIPLE_K / tK
  return NCEP_E_TRIPLE_PA * Math.pow(tr, A_ICE) * Math.exp(B_ICE * (1 - tr))
}

/**
 * UPP `FPVSNEW` evaluated directly (NCEP tabulates it; the table differs in the last digits):
 * liquid from 273.16 K up, ice below 253.16 K, a linear blend in between.
 */
export function ncepSaturationVapourPressure (tK: number): number {
  if (tK >= T_TRIPLE_K) return ncepSaturationLiquid(tK)
  if (tK < NCEP_T_ICE_K) return ncepSaturationIce(tK)
  const w = (tK - NCEP_T_ICE_K) / (T_TRIPLE_K - NCEP_T_ICE_K)
  return w * ncepSaturationLiquid(tK) + (1 - w) * ncepSaturationIce(tK)
}
