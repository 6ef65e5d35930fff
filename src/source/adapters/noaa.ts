// noaa: NOMADS' grib filter for the runs it still holds (about 10 days), the public bucket for
// older ones; a unit one of them holds names the other's as its alternate.
import type { GridPoint, LatLonGrid } from '../../grib/index.js'
import { GLOBAL_0P25, type RunStep } from '../gfs.js'
import type { Errand, HttpOptions } from './http-get.js'
import type { Adapter, FetchUnit, HeldRunStep, Origin } from './adapter.js'
import { BucketAdapter } from './bucket.js'
import { FilterAdapter } from './filter.js'

export const NOAA_DEFAULTS = {
  filterUrl: 'https://nomads.ncep.noaa.gov/cgi-bin/filter_gfs_0p25.pl',
  listingUrl: 'https://nomads.ncep.noaa.gov/pub/data/nccf/com/gfs/prod/',
  bucketUrl: 'https://noaa-gfs-bdp-pds.s3.amazonaws.com'
}

export class NoaaAdapter implements Adapter {
  readonly kind = 'noaa'
  readonly filter: FilterAdapter
  readonly bucket: BucketAdapter

  constructor (http: HttpOptions, tileSize: number, urls: Partial<typeof NOAA_DEFAULTS> = {},
    private readonly warn: (msg: string) => void = () => {}) {
    const u = { ...NOAA_DEFAULTS, ...urls }
    this.filter = new FilterAdapter(u.filterUrl, http, tileSize, u.listingUrl)
    this.bucket = new BucketAdapter(u.bucketUrl, http, true)
  }

  async listDays (): Promise<string[]> {
    const [a, b] = await Promise.allSettled([this.filter.listDays(), this.bucket.listDays()])
    if (a.status === 'rejected' && b.status === 'rejected') throw a.reason
    for (const r of [a, b]) {
      if (r.status === 'rejected') {
        this.warn(`GFS listing failed, using the other upstream: ${(r.reason as Error).message}`)
      }
    }
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

  async download (unit: FetchUnit, errand: Errand): Promise<Uint8Array> {
    return unit.origin === 'filter' ? await this.filter.download(unit, errand) : await this.bucket.download(unit,
      errand)
  }
}
