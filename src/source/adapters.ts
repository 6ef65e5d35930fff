// Source adapters behind one interface: a mirror directory, the bucket layout over HTTP (a
// mirror URL or NOAA's noaa-gfs-bdp-pds), the NOMADS grib filter, and `noaa` (filter for recent
// runs, bucket for older ones, each the other's fallback). Each knows how to list what it holds
// (free discovery) and how to download one unit's bytes (an upstream attempt).
import { open, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseIdx, scanMessages, type GribField, type GridPoint, type IdxEntry, type LatLonGrid } from '../grib/index.js'
import type { Discovery } from './catalog.js'
import { UpstreamFailure } from './errors.js'
import {
  FILE_NAME, GLOBAL_0P25, bucketKey, fileUnitKey, filterQuery, parseBucketKey, runFromText, tileOf, tileUnitKey, type RunStep, type Tile
} from './gfs.js'
import { httpGet, httpText, joinUrl, type ByteRange, type HttpOptions } from './http.js'
import { MAX_RANGE_GAP, bridge, coalesce, columnLevels, cutMessages, extract, isNotPresentPage, selectIdx } from './unit.js'

export type Origin = 'mirror' | 'bucket' | 'filter'

/** A (run, step) as listed, with the upstreams that hold it (noaa lists two). */
export interface HeldRunStep extends RunStep {
  via?: Origin[]
}

/** The smallest piece of upstream data that answers a profile; one allowance attempt to fetch. */
export interface FetchUnit {
  /** Stable id, also the raw-cache path: `gfs/2020080412/f006` or `…/f006/tile4/552_52`. */
  key: string
  run: number
  step: number
  origin: Origin
  tile?: Tile
  /** noaa only: the same (run, step) from the other upstream, tried when this one fails. */
  alternate?: FetchUnit
}

export interface Adapter extends Discovery {
  readonly kind: 'mirror' | 'filter' | 'noaa'
  /** The grid points are rounded on (probed once from a file for a mirror). */
  grid (): Promise<LatLonGrid>
  /** Isobaric levels (Pa) with a full column, when known. */
  levels (): number[] | null
  unitFor (rs: HeldRunStep, point: GridPoint): FetchUnit
  /** The unit's raw bytes, unverified. Throws UpstreamFailure. */
  download (unit: FetchUnit): Promise<Uint8Array>
  /** The URL (or path) a unit comes from, for logs and provenance. */
  locate (unit: FetchUnit): string
}

function fileUnit (rs: RunStep, origin: Origin): FetchUnit {
  return { key: fileUnitKey(rs), run: rs.run, step: rs.step, origin }
}

const DAY_DIR = /^gfs\.(\d{8})$/

/** Files a grid probe tries before it gives up. */
const PROBE_TRIES = 5

/**
 * The grid `read` finds in the newest file of a mirror, newest day first. A file failing as
 * `passable` is passed over, up to PROBE_TRIES files; then the last such failure is thrown.
 */
async function probeNewest (
  mirror: Pick<Discovery, 'listDays' | 'listDay'>,
  where: string,
  read: (rs: RunStep) => Promise<LatLonGrid>,
  passable: (err: unknown) => boolean
): Promise<LatLonGrid> {
  let last: unknown = null
  let tries = 0
  for (const day of (await mirror.listDays()).sort().reverse()) {
    for (const rs of await mirror.listDay(day)) {
      if (tries++ >= PROBE_TRIES) throw last
      try {
        return await read(rs)
      } catch (err) {
        if (!passable(err)) throw err
        last = err
      }
    }
  }
  throw last ?? new UpstreamFailure('missing', `the mirror ${where} holds no GFS file`)
}

function entriesOf (day: string, cycle: string, names: Iterable<string>): RunStep[] {
  const run = runFromText(day, Number(cycle))
  if (!/^\d\d$/.test(cycle) || Number.isNaN(run) || Number(cycle) % 6 !== 0) return []
  const out: RunStep[] = []
  for (const name of names) {
    const m = FILE_NAME.exec(name)
    if (m !== null && m[1] === cycle) out.push({ run, step: Number(m[2]) })
  }
  return out
}

function levelsFromIdx (entries: readonly IdxEntry[]): number[] {
  const names = new Map<number, Set<string>>()
  for (const e of selectIdx(entries)) {
    const m = /^([\d.]+) mb$/.exec(e.level)
    if (m === null) continue
    const pa = Math.round(Number(m[1]) * 100 * 1000) / 1000
    if (!names.has(pa)) names.set(pa, new Set())
    names.get(pa)!.add(e.name)
  }
  return [...names].filter(([, n]) => ['HGT', 'TMP', 'UGRD', 'VGRD'].every((x) => n.has(x))).map(([v]) => v).sort((a, b) => a - b)
}

/** The first message's grid: a probe that reads only that message. */
function firstGrid (bytes: Uint8Array): LatLonGrid {
  return scanMessages(bytes)[0].grid
}

function messageLength (head: Uint8Array): number {
  if (head.length < 16 || head[0] !== 0x47 || head[1] !== 0x52 || head[2] !== 0x49 || head[3] !== 0x42) {
    throw new UpstreamFailure('unusable', 'the probed file does not start with a GRIB message')
  }
  return head[12] * 0x1000000 + head[13] * 0x10000 + head[14] * 0x100 + head[15]
}

// ---------------------------------------------------------------------------------------------
// mirror:<directory>

export class DirectoryAdapter implements Adapter {
  readonly kind = 'mirror'
  private probed: Promise<LatLonGrid> | null = null
  private known: number[] | null = null

  constructor (private readonly root: string) {}

  async listDays (): Promise<string[]> {
    const names = await this.dir(this.root)
    return names.map((n) => DAY_DIR.exec(n)?.[1]).filter((d): d is string => d !== undefined)
  }

  async listDay (day: string): Promise<RunStep[]> {
    const out: RunStep[] = []
    for (const cycle of await this.dir(join(this.root, `gfs.${day}`))) {
      out.push(...entriesOf(day, cycle, await this.dir(join(this.root, `gfs.${day}`, cycle, 'atmos'))))
    }
    return out
  }

  async grid (): Promise<LatLonGrid> {
    this.probed ??= this.probe().catch((err) => { this.probed = null; throw err })
    return await this.probed
  }

  levels (): number[] | null { return this.known }

  unitFor (rs: RunStep): FetchUnit { return fileUnit(rs, 'mirror') }

  locate (unit: FetchUnit): string { return join(this.root, bucketKey(unit)) }

  async download (unit: FetchUnit): Promise<Uint8Array> {
    const path = this.locate(unit)
    const idx = await this.read(path + '.idx').catch((err) => { if (err instanceof UpstreamFailure && err.kind === 'missing') return null; throw err })
    if (idx === null) return wholeFile(await this.read(path))
    const spans = bridge(coalesce(selectIdx(parseIdx(new TextDecoder().decode(idx)))), MAX_RANGE_GAP)
    const handle = await open(path).catch(() => { throw new UpstreamFailure('missing', `${path} is not in the mirror`) })
    try {
      const size = (await handle.stat()).size
      const parts: Uint8Array[] = []
      for (const { range: r } of spans) {
        const end = r.end ?? size - 1
        const buf = new Uint8Array(end - r.start + 1)
        const { bytesRead } = await handle.read(buf, 0, buf.length, r.start)
        if (bytesRead !== buf.length) throw new UpstreamFailure('unusable', `${path}: .idx range ${r.start}-${end} runs past the file's ${size} bytes`)
        parts.push(buf)
      }
      return extract(spans, parts)
    } finally {
      await handle.close()
    }
  }

  /** The grid of the newest file that reads as GRIB2; a few bad files are passed over. */
  private async probe (): Promise<LatLonGrid> {
    return await probeNewest(this, this.root, async (rs) => {
      const fields = scanOrUnusable(await this.read(this.locate(fileUnit(rs, 'mirror'))))
      this.known = columnLevels(fields)
      return fields[0].grid
    }, (err) => err instanceof UpstreamFailure)
  }

  private async dir (path: string): Promise<string[]> {
    try {
      return await readdir(path)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return []
      throw err
    }
  }

  private async read (path: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await readFile(path))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UpstreamFailure('missing', `${path} is not in the mirror`)
      throw err
    }
  }
}

/** Without an `.idx`: scan the whole file once and keep the profile's messages. */
function wholeFile (bytes: Uint8Array): Uint8Array {
  if (isNotPresentPage(bytes)) throw new UpstreamFailure('missing', 'upstream says the data file is not present')
  return cutMessages(bytes, scanOrUnusable(bytes))
}

function scanOrUnusable (bytes: Uint8Array): GribField[] {
  try {
    return scanMessages(bytes)
  } catch (err) {
    throw new UpstreamFailure('unusable', `not usable GRIB2: ${(err as Error).message}`)
  }
}

function concat (parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) { out.set(p, o); o += p.length }
  return out
}

// ---------------------------------------------------------------------------------------------
// The bucket layout over HTTP(S): mirror:<URL> and the bucket half of noaa.

const XML_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" }
const unxml = (s: string): string => s.replace(/&(amp|lt|gt|quot|apos);/g, (m) => XML_ENTITIES[m])

/** One S3 ListObjectsV2 listing (all pages): keys and common prefixes under `prefix`. */
export async function listObjects (base: string, prefix: string, http: HttpOptions): Promise<{ keys: string[], prefixes: string[] }> {
  const keys: string[] = []
  const prefixes: string[] = []
  let token: string | null = null
  do {
    let url = `${base.replace(/\/+$/, '')}/?list-type=2&prefix=${encodeURIComponent(prefix)}&delimiter=%2F`
    if (token !== null) url += `&continuation-token=${encodeURIComponent(token)}`
    const xml = await httpText(url, http)
    // a listing cut short would silently hide runs: refuse it
    if (!/<\/ListBucketResult>\s*$/.test(xml)) throw new UpstreamFailure('server', `${url}: incomplete ListObjectsV2 answer`)
    for (const m of xml.matchAll(/<Contents>[\s\S]*?<Key>([^<]*)<\/Key>[\s\S]*?<\/Contents>/g)) keys.push(unxml(m[1]))
    for (const m of xml.matchAll(/<CommonPrefixes>\s*<Prefix>([^<]*)<\/Prefix>\s*<\/CommonPrefixes>/g)) prefixes.push(unxml(m[1]))
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? unxml(/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '') : null
    if (token === '') throw new UpstreamFailure('unusable', `${url}: truncated listing without a continuation token`)
  } while (token !== null)
  return { keys, prefixes }
}

export class BucketAdapter implements Adapter {
  readonly kind = 'mirror'
  private probed: Promise<LatLonGrid> | null = null
  private known: number[] | null = null

  /** `global`: the grid is known (NOAA's bucket), no probe needed. */
  constructor (private readonly base: string, private readonly http: HttpOptions, private readonly global = false) {}

  async listDays (): Promise<string[]> {
    const { prefixes } = await listObjects(this.base, 'gfs.', this.http)
    return prefixes.map((p) => /^gfs\.(\d{8})\/$/.exec(p)?.[1]).filter((d): d is string => d !== undefined)
  }

  async listDay (day: string): Promise<RunStep[]> {
    const { prefixes } = await listObjects(this.base, `gfs.${day}/`, this.http)
    const out: RunStep[] = []
    for (const p of prefixes) {
      const { keys } = await listObjects(this.base, `${p}atmos/`, this.http)
      for (const k of keys) {
        const rs = parseBucketKey(k)
        if (rs !== null) out.push(rs)
      }
    }
    return out
  }

  async grid (): Promise<LatLonGrid> {
    if (this.global) return GLOBAL_0P25
    this.probed ??= this.probe().catch((err) => { this.probed = null; throw err })
    return await this.probed
  }

  levels (): number[] | null { return this.known }

  unitFor (rs: RunStep): FetchUnit { return fileUnit(rs, this.global ? 'bucket' : 'mirror') }

  locate (unit: FetchUnit): string { return joinUrl(this.base, bucketKey(unit)) }

  async download (unit: FetchUnit): Promise<Uint8Array> {
    const url = this.locate(unit)
    const idx = await this.idx(url)
    if (idx === null) return wholeFile(await httpGet(url, this.http))
    this.known ??= levelsFromIdx(idx)
    const spans = bridge(coalesce(selectIdx(idx)), MAX_RANGE_GAP)
    if (spans.length === 0) throw new UpstreamFailure('unusable', `${url}.idx lists none of the fields a profile needs`)
    return extract(spans, await Promise.all(spans.map(async (span) => await httpGet(url, this.http, span.range))))
  }

  private async idx (url: string): Promise<IdxEntry[] | null> {
    try {
      const bytes = await httpGet(url + '.idx', this.http)
      if (isNotPresentPage(bytes)) return null
      return parseIdx(new TextDecoder().decode(bytes))
    } catch (err) {
      if (err instanceof UpstreamFailure && err.kind === 'missing') return null
      if (err instanceof Error && err.name === 'GribError') throw new UpstreamFailure('unusable', `${url}.idx: ${err.message}`)
      throw err
    }
  }

  /** The grid of the newest file that reads as GRIB2; a few bad files are passed over. */
  private async probe (): Promise<LatLonGrid> {
    return await probeNewest(this, this.base, async (rs) => {
      const url = this.locate(fileUnit(rs, 'mirror'))
      const length = messageLength(await httpGet(url, this.http, { start: 0, end: 15 }))
      const grid = firstGrid(await httpGet(url, this.http, { start: 0, end: length - 1 }))
      const idx = await this.idx(url)
      if (idx !== null) this.known = levelsFromIdx(idx)
      return grid
    }, (err) => err instanceof UpstreamFailure || (err instanceof Error && err.name === 'GribError'))
  }
}

// ---------------------------------------------------------------------------------------------
// filter:<URL>, with NOMADS' directory listing pages for discovery.

/** The hrefs of an Apache-style directory index page. */
export function listingLinks (html: string): string[] {
  return [...html.matchAll(/href="([^"?#]+)"/gi)].map((m) => decodeURIComponent(m[1]).replace(/^.*\/(?=[^/]+\/?$)/, ''))
}

export class FilterAdapter implements Adapter {
  readonly kind = 'filter'

  /**
   * `filterUrl`: the filter script, e.g. https://nomads.ncep.noaa.gov/cgi-bin/filter_gfs_0p25.pl.
   * `listingUrl`: the directory holding `gfs.YYYYMMDD/`; default `<origin>/pub/data/nccf/com/gfs/prod/`.
   */
  constructor (
    private readonly filterUrl: string,
    private readonly http: HttpOptions,
    private readonly tileSize: number,
    private readonly listingUrl = new URL('/pub/data/nccf/com/gfs/prod/', filterUrl).href
  ) {}

  async listDays (): Promise<string[]> {
    const links = listingLinks(await httpText(this.listingUrl, this.http))
    return links.map((l) => /^gfs\.(\d{8})\/$/.exec(l)?.[1]).filter((d): d is string => d !== undefined)
  }

  async listDay (day: string): Promise<RunStep[]> {
    const out: RunStep[] = []
    const cycles = listingLinks(await httpText(joinUrl(this.listingUrl, `gfs.${day}/`), this.http))
    for (const c of cycles) {
      const m = /^(\d\d)\/$/.exec(c)
      if (m === null) continue
      const files = await httpText(joinUrl(this.listingUrl, `gfs.${day}/${m[1]}/atmos/`), this.http).catch((err) => {
        if (err instanceof UpstreamFailure && err.kind === 'missing') return ''
        throw err
      })
      out.push(...entriesOf(day, m[1], listingLinks(files)))
    }
    return out
  }

  async grid (): Promise<LatLonGrid> { return GLOBAL_0P25 }

  levels (): number[] | null { return null }

  unitFor (rs: RunStep, point: GridPoint): FetchUnit {
    const tile = tileOf(point.i, point.j, this.tileSize)
    return { key: tileUnitKey(rs, tile), run: rs.run, step: rs.step, origin: 'filter', tile }
  }

  locate (unit: FetchUnit): string {
    return `${this.filterUrl}?${filterQuery(unit, unit.tile as Tile)}`
  }

  async download (unit: FetchUnit): Promise<Uint8Array> {
    return await httpGet(this.locate(unit), this.http)
  }
}

// ---------------------------------------------------------------------------------------------
// noaa: NOMADS' grib filter for the runs it still holds (about 10 days), the public bucket for
// older ones; a unit one of them holds names the other's as its alternate.

export const NOAA_DEFAULTS = {
  filterUrl: 'https://nomads.ncep.noaa.gov/cgi-bin/filter_gfs_0p25.pl',
  listingUrl: 'https://nomads.ncep.noaa.gov/pub/data/nccf/com/gfs/prod/',
  bucketUrl: 'https://noaa-gfs-bdp-pds.s3.amazonaws.com'
}

export class NoaaAdapter implements Adapter {
  readonly kind = 'noaa'
  readonly filter: FilterAdapter
  readonly bucket: BucketAdapter

  constructor (http: HttpOptions, tileSize: number, urls: Partial<typeof NOAA_DEFAULTS> = {}, private readonly warn: (msg: string) => void = () => {}) {
    const u = { ...NOAA_DEFAULTS, ...urls }
    this.filter = new FilterAdapter(u.filterUrl, http, tileSize, u.listingUrl)
    this.bucket = new BucketAdapter(u.bucketUrl, http, true)
  }

  async listDays (): Promise<string[]> {
    const [a, b] = await Promise.allSettled([this.filter.listDays(), this.bucket.listDays()])
    if (a.status === 'rejected' && b.status === 'rejected') throw a.reason
    for (const r of [a, b]) if (r.status === 'rejected') this.warn(`GFS listing failed, using the other upstream: ${(r.reason as Error).message}`)
    return [...new Set([...(a.status === 'fulfilled' ? a.value : []), ...(b.status === 'fulfilled' ? b.value : [])])]
  }

  async listDay (day: string): Promise<HeldRunStep[]> {
    const [a, b] = await Promise.allSettled([this.filter.listDay(day), this.bucket.listDay(day)])
    if (a.status === 'rejected' && b.status === 'rejected') throw a.reason
    const held = new Map<string, HeldRunStep>()
    const add = (list: RunStep[], via: Origin): void => {
      for (const rs of list) {
        const key = `${rs.run}/${rs.step}`
        const h = held.get(key) ?? { run: rs.run, step: rs.step, via: [] }
        h.via!.push(via)
        held.set(key, h)
      }
    }
    if (a.status === 'fulfilled') add(a.value, 'filter')
    if (b.status === 'fulfilled') add(b.value, 'bucket')
    return [...held.values()]
  }

  async grid (): Promise<LatLonGrid> { return GLOBAL_0P25 }

  levels (): number[] | null { return this.bucket.levels() }

  unitFor (rs: HeldRunStep, point: GridPoint): FetchUnit {
    const via = rs.via ?? ['filter', 'bucket']
    const filter = this.filter.unitFor(rs, point)
    const bucket = this.bucket.unitFor(rs)
    if (via.includes('filter')) return via.includes('bucket') ? { ...filter, alternate: bucket } : filter
    return bucket
  }

  locate (unit: FetchUnit): string {
    return unit.origin === 'filter' ? this.filter.locate(unit) : this.bucket.locate(unit)
  }

  async download (unit: FetchUnit): Promise<Uint8Array> {
    return unit.origin === 'filter' ? await this.filter.download(unit) : await this.bucket.download(unit)
  }
}
