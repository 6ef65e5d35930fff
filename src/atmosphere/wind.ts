const DEG = 180 / Math.PI

export function windSpeed (uMs: number, vMs: number): number {
  return Math.sqrt(uMs * uMs + vMs * vMs)
}

/**
 * Direction the wind blows from, degrees clockwise from true north, in [0, 360).
 * Calm is 0; −0 and a float result that rounds up to 360 also become 0, so 360 is never returned.
 */
export function windDirectionFrom (uMs: number, vMs: number): number {
  if (uMs === 0 && vMs === 0) return 0
  let d = Math.atan2(-uMs, -vMs) * DEG
  if (d < 0) d += 360
  return d >= 360 || d === 0 ? 0 : d
}
