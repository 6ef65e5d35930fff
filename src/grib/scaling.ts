// Y = (R + X·2^E)·10^-D, computed exactly as ecCodes does it, so float32 results match bit for bit.

/** n^s by repeated multiplication or division, as ecCodes' codes_power (10^-2 is (1/10)/10). */
export function power (s: number, n: number): number {
  let d = 1
  if (s === 0) return 1
  if (s === 1) return n
  for (; s < 0; s++) d /= n
  for (; s > 0; s--) d *= n
  return d
}
