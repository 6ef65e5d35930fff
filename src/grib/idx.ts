// NOAA `.idx` inventories: `n:offset:d=YYYYMMDDHH:VAR:LEVEL:STEP:` per message. Lines are looked
// up by (variable, level text), never by position (HGT:1000 mb is out of order in GFS files).
import { GribError } from './errors.js'

export interface IdxEntry {
  message: number // the record number as written (1-based)
  start: number // byte offset of the message
  /** Byte offset just past the message (exclusive); null for the last record until the file size is known. */
  end: number | null
  date: string // 'YYYYMMDDHH' as written after d=
  name: string // e.g. 'HGT'
  level: string // e.g. '500 mb', '0.4 mb', 'surface'
  step: string // e.g. 'anl', '6 hour fcst'
}

const LINE = /^(\d+)(?:\.\d+)?:(\d+):d=(\d{10}):([^:]+):([^:]+):([^:]*)/

/** Parse an inventory. `fileSize`, when known, closes the last record's range. */
export function parseIdx (text: string, fileSize?: number): IdxEntry[] {
  const entries: IdxEntry[] = []
  const lines = text.split('\n')
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k].trim()
    if (line === '') continue
    const m = LINE.exec(line)
    if (m === null) {
      throw new GribError('bad_idx',
        `.idx line ${k + 1} is not 'n:offset:d=YYYYMMDDHH:VAR:LEVEL:STEP:': ${line.slice(0, 80)}`)
    }
    entries.push({ message: Number(m[1]), start: Number(m[2]), end: null, date: m[3], name: m[4], level: m[5],
      step: m[6] })
  }
  // Records follow in file order of offsets, but several fields of one message (n.1, n.2) share
  // an offset; a record ends where the next larger offset starts.
  const starts = [...new Set(entries.map((e) => e.start))].sort((a, b) => a - b)
  const next = new Map<number, number | null>()
  for (let k = 0; k < starts.length; k++) {
    next.set(starts[k], k + 1 < starts.length ? starts[k + 1] : (fileSize ?? null))
  }
  for (const e of entries) e.end = next.get(e.start) ?? null
  return entries
}

/** The byte range of `name` at `level` (first occurrence wins); null if the inventory lacks it. */
export function findIdx (
  entries: IdxEntry[], name: string, level: string
): { start: number, end: number | null } | null {
  for (const e of entries) if (e.name === name && e.level === level) return { start: e.start, end: e.end }
  return null
}

/** The `.idx` level text of an isobaric level given in Pa: 50000 → '500 mb', 40 → '0.4 mb'. */
export function isobaricLevelText (pa: number): string {
  return `${Number((pa / 100).toPrecision(12))} mb`
}
