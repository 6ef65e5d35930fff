import type { Column } from './column.js'

export type AltitudeReference = 'agl' | 'msl'

/** Seed 2.4: the vertical range that can be served at the point, in both references. */
export interface VerticalCoverage {
  minimum_msl_m: number
  maximum_msl_m: number
  minimum_agl_m: number
  maximum_agl_m: number
}

/**
 * Lowest and highest kept level heights; the AGL pair is relative to the ground in use (caller's
 * or model's), so it may be negative. No surface level is added (docs/DESIGN.md §4). Needs count ≥ 1.
 */
export function verticalCoverage (column: Column, groundMsl: number): VerticalCoverage {
  const min = column.z_m[0]
  const max = column.z_m[column.count - 1]
  return {
    minimum_msl_m: min,
    maximum_msl_m: max,
    minimum_agl_m: min - groundMsl,
    maximum_agl_m: max - groundMsl
  }
}

/**
 * Whether a requested height can be served. Compared in the request's own reference so a height
 * given exactly as a published coverage limit is always served (docs/DESIGN.md §3); NaN is outside.
 */
export function isWithinCoverage (coverage: VerticalCoverage, altitude: number, reference: AltitudeReference): boolean {
  return reference === 'agl'
    ? altitude >= coverage.minimum_agl_m && altitude <= coverage.maximum_agl_m
    : altitude >= coverage.minimum_msl_m && altitude <= coverage.maximum_msl_m
}

export function toMsl (altitude: number, reference: AltitudeReference, groundMsl: number): number {
  return reference === 'msl' ? altitude : altitude + groundMsl
}

export function toAgl (altitude: number, reference: AltitudeReference, groundMsl: number): number {
  return reference === 'agl' ? altitude : altitude - groundMsl
}
