// Reading Prometheus' exposition format as a test needs it: every counter's and histogram's series
// with its value, and which of them went down between two scrapes (what Prometheus reads as a reset).

/** Every sample of a counter or histogram (buckets, _sum and _count), by its line's name and labels. */
export function monotonicSeries (text: string): Map<string, number> {
  const types = new Map<string, string>()
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1], m[2])
  const series = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    const id = line.slice(0, at)
    const name = /^[^{ ]+/.exec(id)![0]
    const base = name.replace(/_(bucket|sum|count)$/, '')
    const type = types.get(name) ?? types.get(base)
    if (type === 'counter' || (type === 'histogram' && base !== name)) series.set(id, Number(line.slice(at + 1)))
  }
  return series
}

/** The series lower in `after` than in `before` (or gone from it), as "series: before → after". */
export function dropsBetween (before: string, after: string): string[] {
  const now = monotonicSeries(after)
  const drops: string[] = []
  for (const [id, value] of monotonicSeries(before)) {
    const later = now.get(id)
    if (later === undefined || later < value) drops.push(`${id}: ${value} → ${later ?? 'gone'}`)
  }
  return drops
}
