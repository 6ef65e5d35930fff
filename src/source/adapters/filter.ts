// filter:<URL>: the NOMADS grib filter, one request per (run, step, tile), with NOMADS'
// directory listing pages for discovery.
import type { GridPoint, LatLonGrid } from '../../grib/index.js'
import { UpstreamFailure } from '../errors.js'
import { GLOBAL_0P25, filterQuery, tileOf, tileUnitKey, type RunStep, type Tile } from '../gfs.js'
import { httpGet, httpText, joinUrl, type Errand, type HttpOptions } from './http-get.js'
import { entriesOf, type Adapter, type FetchUnit } from './adapter.js'

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

  async download (unit: FetchUnit, errand: Errand): Promise<Uint8Array> {
    return await httpGet(this.locate(unit), this.http, undefined, errand)
  }
}
