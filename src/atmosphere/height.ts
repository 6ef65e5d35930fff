import { EARTH_RADIUS_M } from './constants.js'

/** Geometric height (m) from geopotential height H (gpm) on a sphere of radius R: z = R·H/(R − H). */
export function geometricHeight (hgtGpm: number): number {
  return (EARTH_RADIUS_M * hgtGpm) / (EARTH_RADIUS_M - hgtGpm)
}
