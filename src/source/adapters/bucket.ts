// The bucket layout over HTTP(S): mirror:<URL> and the bucket half of noaa (NOAA's
// noaa-gfs-bdp-pds). Discovery by S3 ListObjectsV2; downloads by `.idx` byte ranges.
import { parseIdx, type IdxEntry, type LatLonGrid } from '../../grib/index.js'
import { UpstreamFailure } from '../errors.js'
import { GLOBAL_0P25, bucketKey, parseBucketKey, type RunStep } from '../gfs.js'
import { httpGet, httpText, joinUrl, type Errand, type HttpOptions } from './http-get.js'
import { MAX_RANGE_GAP, bridge, coalesce, extract, isNotPresentPage, selectIdx } from '../unit.js'
import {
  fileUnit, firstGrid, levelsFromIdx, messageLength, probeNewest, wholeFile, type Adapter, type FetchUnit
} from './adapter.js'

const XML_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" }
const unxml = (s: string): string => s.replace(/&(amp|lt|gt|quot|apos);/g, (m) => XML_ENTITIES[m])

/** One S3 ListObjectsV2 listing (all pages): keys and common prefixes under `prefix`. */
export async function listObjects (
  base: string, prefix: string, http: HttpOptions
): Promise<{ keys: string[], prefixes: string[] }> {
  const keys: string[] = []
  const prefixes: string[] = []
  let token: string | null = null
  do {
    let url = `${base.replace(/\/+$/, '')}/?list-type=2&prefix=${encodeURIComponent(prefix)}&delimiter=%2F`
    if (token !== null) url += `&continuation-token=${encodeURIComponent(token)}`
    const xml = await httpText(url, http)
    // a listing cut short would silently hide runs: refuse it
    if (!/<\/ListBucketResult>\s*$/.test(xml)) {
      throw new UpstreamFailure('server', 'incomplete ListObjectsV2 answer', { where: url })
    }
    for (const m of xml.matchAll(/<Contents>[\s\S]*?<Key>([^<]*)<\/Key>[\s\S]*?<\/Contents>/g)) keys.push(unxml(m[1]))
    for (const m of xml.matchAll(/<CommonPrefixes>\s*<Prefix>([^<]*)<\/Prefix>\s*<\/CommonPrefixes>/g)) {
      prefixes.push(unxml(m[1]))
    }
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml)
      ? unxml(/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '')
      : null
    if (token === '') {
      throw new UpstreamFailure('unusable', 'truncated listing without a continuation token', { where: url })
    }
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

  async download (unit: FetchUnit, errand: Errand): Promise<Uint8Array> {
    const url = this.locate(unit)
    const idx = await this.idx(url, errand)
    if (idx === null) return wholeFile(await httpGet(url, this.http, undefined, errand))
    this.known ??= levelsFromIdx(idx)
    const spans = bridge(coalesce(selectIdx(idx)), MAX_RANGE_GAP)
    if (spans.length === 0) {
      throw new UpstreamFailure('unusable', 'the .idx lists none of the fields a profile needs',
        { where: url + '.idx' })
    }
    return extract(spans,
      await Promise.all(spans.map(async (span) => await httpGet(url, this.http, span.range, errand))))
  }

  /** The file's `.idx`; null when there is none. Part of a download's errand, or free discovery. */
  private async idx (url: string, errand?: Errand): Promise<IdxEntry[] | null> {
    try {
      const bytes = await httpGet(url + '.idx', this.http, undefined, errand)
      if (isNotPresentPage(bytes)) return null
      return parseIdx(new TextDecoder().decode(bytes))
    } catch (err) {
      if (err instanceof UpstreamFailure && err.kind === 'missing') return null
      if (err instanceof Error && err.name === 'GribError') {
        throw new UpstreamFailure('unusable', `the .idx: ${err.message}`, { where: url + '.idx' })
      }
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
