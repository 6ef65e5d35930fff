// Numbers as a person reads them: fixed decimals, a thin space between thousands, a real minus.
export function num (x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–'
  const s = Math.abs(x).toFixed(digits)
  const [whole, frac] = s.split('.')
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009')
  return (x < 0 && Number(s) !== 0 ? '−' : '') + grouped + (frac === undefined ? '' : '.' + frac)
}

export const celsius = (k: number): number => k - 273.15

/** `2020-08-04T18:00:00Z` → `2020-08-04 18:00 UTC`. */
export function utc (iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC'
}

export function latLon (lat: number, lon: number): string {
  const east = lon > 180 ? lon - 360 : lon
  return `${num(Math.abs(lat), 3)}° ${lat < 0 ? 'S' : 'N'}, ${num(Math.abs(east), 3)}° ${east < 0 ? 'W' : 'E'}`
}

export function duration (seconds: number): string {
  const m = Math.round(seconds / 60)
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`
}
