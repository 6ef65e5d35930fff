// What a fetch unit must contain, how it is cut from a file (by `.idx` ranges or by one scan),
// and the check every fetched unit passes before it is cached or handed on.
import { GribError, scanMessages, type GribField, type IdxEntry } from '../grib/index.js'
import { UpstreamFailure } from './errors.js'
import {
  HUMIDITY_VARIABLES, LEVEL_ISOBARIC, LEVEL_SURFACE, PROFILE_VARIABLES, SURFACE_LAYER_RECORDS, surfaceLayerIndex,
  type RunStep
} from './gfs.js'
import { rfc3339 } from '../contract/index.js'

const ISOBARIC = LEVEL_ISOBARIC
const SURFACE = LEVEL_SURFACE
const COLUMN = new Set<string>([...PROFILE_VARIABLES, ...HUMIDITY_VARIABLES])


/**
 * Is this field one a unit carries? HGT/TMP/UGRD/VGRD/SPFH/RH on isobaric levels, HGT at the
 * surface, and the surface layer's near-ground fields.
 */
export function isUnitField (f: GribField): boolean {
  if (f.level.type === ISOBARIC) return COLUMN.has(f.name)
  return (f.name === 'HGT' && f.level.type === SURFACE) || surfaceLayerIndex(f) >= 0
}

/** SPFH at 2 m decides the surface layer's humidity; RH at 2 m is carried only without it. */
const SPFH_2M = SURFACE_LAYER_RECORDS.find((r) => r.name === 'SPFH' && r.value === 2) as { idxLevel: string }
const RH_2M = SURFACE_LAYER_RECORDS.find((r) => r.name === 'RH' && r.value === 2) as { name: string, value: number }

const MB_LEVEL = /^\d+(\.\d+)? mb$/

const SURFACE_LAYER_IDX = new Set(SURFACE_LAYER_RECORDS.map((r) => `${r.name}:${r.idxLevel}`))

/**
 * The `.idx` records a unit needs: the column variables on every isobaric level, HGT at the
 * surface and the surface layer's near-ground fields. SPFH when the file has it on isobaric
 * levels, else RH; RH at 2 m only without SPFH at 2 m. Chosen by name and level text, never by
 * position.
 */
export function selectIdx (entries: readonly IdxEntry[]): IdxEntry[] {
  const hasSpfh = entries.some((e) => e.name === 'SPFH' && MB_LEVEL.test(e.level))
  const humidity = hasSpfh ? 'SPFH' : 'RH'
  const hasSpfh2m = entries.some((e) => e.name === 'SPFH' && e.level === SPFH_2M.idxLevel)
  return entries.filter((e) =>
    (MB_LEVEL.test(e.level) && ((PROFILE_VARIABLES as readonly string[]).includes(e.name) || e.name === humidity)) ||
    (e.name === 'HGT' && e.level === 'surface') ||
    (SURFACE_LAYER_IDX.has(`${e.name}:${e.level}`) && !(hasSpfh2m && e.name === 'RH')))
}

/** A byte range of a file, as an HTTP Range asks for it (upstream GETs take one: adapters/http-get.ts). */
export interface ByteRange {
  start: number
  /** Inclusive end; null: to the end of the object. */
  end: number | null
}

/** Byte ranges (inclusive ends) of the records, in file order, adjacent ones merged. */
export function coalesce (entries: readonly IdxEntry[]): ByteRange[] {
  // several fields of one message (n.1, n.2) share an offset: one range per message
  const byStart = new Map<number, IdxEntry>()
  for (const e of entries) byStart.set(e.start, e)
  const sorted = [...byStart.values()].sort((a, b) => a.start - b.start)
  const ranges: ByteRange[] = []
  for (const e of sorted) {
    const end = e.end === null ? null : e.end - 1
    const last = ranges[ranges.length - 1]
    if (last !== undefined && last.end !== null && last.end + 1 === e.start) last.end = end
    else ranges.push({ start: e.start, end })
  }
  return ranges
}

/** A request that spans several needed ranges and the gaps between them. */
export interface Span {
  range: ByteRange
  /** The needed parts, relative to the span's first byte (end exclusive; null: to the end). */
  keep: Array<{ start: number, end: number | null }>
}

/**
 * Spans to request for the ranges: neighbours less than `maxGap` bytes apart are fetched as one
 * request and cut apart afterwards, trading a few unused bytes for far fewer round trips (and
 * fewer requests against NOAA's per-minute limit). The unit's bytes stay exactly the needed
 * messages, in file order.
 */
export function bridge (ranges: readonly ByteRange[], maxGap: number): Span[] {
  const spans: Span[] = []
  for (const r of ranges) {
    const last = spans[spans.length - 1]
    if (last !== undefined && last.range.end !== null && r.start - last.range.end - 1 <= maxGap) {
      const base = last.range.start
      last.keep.push({ start: r.start - base, end: r.end === null ? null : r.end + 1 - base })
      last.range.end = r.end
    } else {
      spans.push({ range: { start: r.start, end: r.end },
        keep: [{ start: 0, end: r.end === null ? null : r.end + 1 - r.start }] })
    }
  }
  return spans
}

/** The needed parts of fetched spans, concatenated. */
export function extract (spans: readonly Span[], fetched: readonly Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = []
  spans.forEach((span, k) => {
    const bytes = fetched[k]
    for (const part of span.keep) {
      const end = part.end ?? bytes.length
      if (end > bytes.length) {
        throw new UpstreamFailure('unusable',
          `range ${span.range.start}-${span.range.end ?? ''} came back with ${bytes.length} bytes, fewer than its ` +
            `.idx records need`)
      }
      parts.push(bytes.subarray(part.start, end))
    }
  })
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) { out.set(p, o); o += p.length }
  return out
}

/** Gaps up to this size between needed ranges are fetched rather than split into requests. */
export const MAX_RANGE_GAP = 256 * 1024

/** From a whole scanned file: the messages holding a unit's fields (as selectIdx picks), concatenated in file order. */
export function cutMessages (bytes: Uint8Array, fields: readonly GribField[]): Uint8Array {
  const hasSpfh = fields.some((f) => f.name === 'SPFH' && f.level.type === ISOBARIC)
  const hasSpfh2m = fields.some((f) => f.name === 'SPFH' && surfaceLayerIndex(f) >= 0 && f.level.value === 2)
  const keep = new Map<number, GribField>()
  for (const f of fields) {
    if (!isUnitField(f)) continue
    if (f.level.type === ISOBARIC && f.name === (hasSpfh ? 'RH' : 'SPFH')) continue
    if (hasSpfh2m && f.name === RH_2M.name && f.level.value === RH_2M.value && f.level.type !== ISOBARIC) continue
    keep.set(f.offset, f)
  }
  const messages = [...keep.values()].sort((a, b) => a.offset - b.offset)
  const out = new Uint8Array(messages.reduce((n, f) => n + f.length, 0))
  let o = 0
  for (const f of messages) { out.set(bytes.subarray(f.offset, f.offset + f.length), o); o += f.length }
  return out
}

/** NOMADS answers a missing file with 200 and an HTML page ("data file is not present"). */
export function isNotPresentPage (bytes: Uint8Array): boolean {
  if (bytes.length > 65_536 || (bytes.length >= 4 && bytes[0] === 0x47 && bytes[1] === 0x52)) return false
  const text = new TextDecoder().decode(bytes).toLowerCase()
  return text.includes('<html') && text.includes('not present')
}

/**
 * Scan and check a fetched unit: valid GRIB2; every profile field for exactly `rs`; HGT at the
 * surface and at least two isobaric levels with HGT, TMP, UGRD, VGRD and SPFH or RH.
 * Throws UpstreamFailure('missing') for NOMADS' not-present page, ('unusable') otherwise.
 */
export function verifyUnit (bytes: Uint8Array, rs: RunStep): GribField[] {
  if (isNotPresentPage(bytes)) throw new UpstreamFailure('missing', 'upstream says the data file is not present')
  let fields: GribField[]
  try {
    fields = scanMessages(bytes)
  } catch (err) {
    if (err instanceof GribError) {
      throw new UpstreamFailure('unusable', `upstream bytes are not usable GRIB2: ${err.message}`)
    }
    throw err
  }
  const reference = rfc3339(rs.run)
  const levels = new Map<number, Set<string>>()
  let surface = false
  for (const f of fields) {
    if (!isUnitField(f)) continue
    if (f.referenceTime !== reference || f.stepHours !== rs.step) {
      throw new UpstreamFailure('unusable',
        `${f.name} at byte ${f.offset} is for run ${f.referenceTime} step ${f.stepHours} h, not the requested run ` +
          `${reference} step ${rs.step} h`)
    }
    if (f.level.type !== ISOBARIC) {
      if (f.name === 'HGT' && f.level.type === SURFACE) surface = true
      continue
    }
    const v = f.level.value as number
    let names = levels.get(v)
    if (names === undefined) levels.set(v, names = new Set())
    names.add(f.name)
  }
  let complete = 0
  for (const names of levels.values()) {
    if (PROFILE_VARIABLES.every((n) => names.has(n)) && (names.has('SPFH') || names.has('RH'))) complete++
  }
  if (!surface) throw new UpstreamFailure('unusable', 'upstream bytes lack HGT at the surface (model terrain)')
  if (complete < 2) {
    throw new UpstreamFailure('unusable',
      `upstream bytes have ${complete} isobaric level(s) with HGT, TMP, UGRD, VGRD and SPFH or RH; a column needs ` +
        `at least 2`)
  }
  return fields
}

/** Isobaric levels (Pa, ascending) with a complete column in `fields`. */
export function columnLevels (fields: readonly GribField[]): number[] {
  const names = new Map<number, Set<string>>()
  for (const f of fields) {
    if (f.level.type !== ISOBARIC || !isUnitField(f)) continue
    const v = f.level.value as number
    if (!names.has(v)) names.set(v, new Set())
    names.get(v)!.add(f.name)
  }
  return [...names].filter(([, n]) => PROFILE_VARIABLES.every((x) => n.has(x)) && (n.has('SPFH') || n.has('RH')))
    .map(([v]) => v).sort((a, b) => a - b)
}
