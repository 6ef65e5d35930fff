// The balloon's motion (docs/DESIGN.md §7) as small pure functions: Tawhiri's wind equations
// over geometric altitudes, its descent drag over the NASA standard atmosphere. They know
// nothing of GRIB or HTTP; the solver composes them.

/** Sphere radius of the position equations (m), as Tawhiri's. */
export const EARTH_RADIUS_M = 6_371_009
/** The integration step (s). */
export const STEP_S = 60
const DEG_PER_RAD = 180 / Math.PI
const RAD_PER_DEG = Math.PI / 180
/** Tawhiri's drag constant: a descent rate given at sea level scales with 1.1045 / √ρ. */
const SEA_LEVEL_DRAG = 1.1045

/** dlat/dt (° s⁻¹) for a northward wind v (m/s) at a geometric altitude (m). */
export function latitudeRate (v: number, altitude: number): number {
  return DEG_PER_RAD * v / (EARTH_RADIUS_M + altitude)
}

/** dlon/dt (° s⁻¹) for an eastward wind u (m/s) at a latitude (°) and altitude (m). */
export function longitudeRate (u: number, latitude: number, altitude: number): number {
  return DEG_PER_RAD * u / ((EARTH_RADIUS_M + altitude) * Math.cos(latitude * RAD_PER_DEG))
}

/**
 * Air density (kg m⁻³) of the NASA standard atmosphere exactly as Tawhiri computes it (h in m;
 * T in °C, p in kPa; its three layers are not quite continuous at 11 and 25 km, as in Tawhiri).
 */
export function nasaDensity (h: number): number {
  let t: number
  let p: number
  if (h > 25_000) {
    t = -131.21 + 0.00299 * h
    p = 2.488 * ((t + 273.1) / 216.6) ** -11.388
  } else if (h > 11_000) {
    t = -56.46
    p = 22.65 * Math.exp(1.73 - 0.000157 * h)
  } else {
    t = 15.04 - 0.00649 * h
    p = 101.29 * ((t + 273.1) / 288.08) ** 5.256
  }
  return p / (0.2869 * (t + 273.1))
}

/** dalt/dt (m/s, negative) of a parachute descending at `seaLevelRate` at sea level, in air of density ρ. */
export function descentRate (seaLevelRate: number, density: number): number {
  return -seaLevelRate * SEA_LEVEL_DRAG / Math.sqrt(density)
}

/** Longitude in [0, 360). */
export function wrapLongitude (lon: number): number {
  const w = lon % 360
  return w < 0 ? w + 360 : w
}

/** Great-circle distance (km) on the position equations' sphere. */
export function greatCircleKm (lat1: number, lon1: number, lat2: number, lon2: number): number {
  const p1 = lat1 * RAD_PER_DEG
  const p2 = lat2 * RAD_PER_DEG
  const dp = p2 - p1
  const dl = (lon2 - lon1) * RAD_PER_DEG
  const a = Math.sin(dp / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) ** 2
  return 2 * EARTH_RADIUS_M / 1000 * Math.asin(Math.min(1, Math.sqrt(a)))
}

/** The state a fraction of the way from one state to the next (longitude along the short way round). */
export function between (
  t0: number, lat0: number, lon0: number, alt0: number, lat1: number, lon1: number, alt1: number,
  frac: number, step: number
): number[] {
  const dlon = ((lon1 - lon0 + 540) % 360) - 180
  return [t0 + frac * step, lat0 + frac * (lat1 - lat0), wrapLongitude(lon0 + frac * dlon), alt0 + frac * (alt1 - alt0)]
}
