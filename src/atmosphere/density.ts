import { EPSILON, R_DRY } from './constants.js'

const VIRTUAL = 1 / EPSILON - 1

/**
 * Density of moist air as an ideal gas from specific humidity, excluding condensate
 * (provenance `density_method`): ρ = p / (R_d · T · (1 + (1/ε − 1)·q)).
 */
export function moistAirDensity (pPa: number, tK: number, qKgKg: number): number {
  return pPa / (R_DRY * tK * (1 + VIRTUAL * qKgKg))
}
