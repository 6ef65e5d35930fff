// What the source holds, as capabilities publish it: its levels, first and last valid times, the
// runs of its newest days, its grid and coverage — or why it cannot say now.
import { normalizeLongitude, type LatLonGrid } from '../grib/index.js'
import type { Adapter } from './adapters/index.js'
import type { Catalog } from './catalog.js'
import { validTime } from './gfs.js'
import type { SourceDescription, SourceLogger } from './types.js'
import { runsOf } from './runs.js'
import { rfc3339 } from '../contract/index.js'

/**
 * Days whose runs a description lists: a mirror (cheap to list, often sparse, like the demo's) a
 * month; NOAA and a grib filter the two newest days, which the description lists anyway (each day
 * costs upstream requests under the shared limiter).
 */
const RUN_LIST_DAYS: Record<Adapter['kind'], number> = { mirror: 31, filter: 2, noaa: 2 }

export interface DescribeParts {
  adapter: Adapter
  catalog: Catalog
  logger: SourceLogger
  grid: () => Promise<LatLonGrid>
  /** Isobaric levels seen in a fetched unit (adapters that cannot tell them before one arrives). */
  levelsSeen: number[] | null
}

export async function describeSource (o: DescribeParts): Promise<SourceDescription> {
  const kind = o.adapter.kind
  const levelsPa = o.adapter.levels() ?? o.levelsSeen
  try {
    const grid = await o.grid()
    const entries = await o.catalog.edges()
    const times = entries.map(validTime)
    const recent = await o.catalog.newestDays(RUN_LIST_DAYS[kind])
    return {
      kind,
      levelsPa: o.adapter.levels() ?? o.levelsSeen,
      status: 'ok',
      statusText: entries.length === 0 ? 'the source holds no GFS files' : `${kind} source available`,
      firstValidTime: times.length === 0 ? null : rfc3339(Math.min(...times)),
      lastValidTime: times.length === 0 ? null : rfc3339(Math.max(...times)),
      runs: runsOf(recent.entries),
      runsComplete: recent.complete,
      coverage: coverageOf(grid),
      grid: { di: grid.di, dj: grid.dj, ni: grid.ni, nj: grid.nj }
    }
  } catch (err) {
    o.logger.warn(`source description failed: ${(err as Error).message}`)
    return { kind, levelsPa, status: 'unavailable', statusText: 'the source cannot be listed right now',
      firstValidTime: null, lastValidTime: null, runs: [], runsComplete: false, coverage: null, grid: null }
  }
}

function coverageOf (grid: LatLonGrid): NonNullable<SourceDescription['coverage']> {
  if (grid.global) return { latitude: { min: grid.south, max: grid.north }, longitude: { min: -180, max: 180 } }
  return { latitude: { min: grid.south, max: grid.north },
    longitude: { min: normalizeLongitude(grid.west), max: normalizeLongitude(grid.east) } }
}
