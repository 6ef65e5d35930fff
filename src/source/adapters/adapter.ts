// What every source adapter is: it lists what it holds (free discovery) and downloads one unit's
// bytes (an upstream attempt). The helpers here are shared by the file adapters (directory and
// bucket): unit shape, day listings, the newest-file grid probe, whole-file cutting.
import { scanMessages, type GribField, type GridPoint, type IdxEntry, type LatLonGrid } from '../../grib/index.js'
import type { Discovery } from '../catalog.js'
import { UpstreamFailure } from '../errors.js'
import { FILE_NAME, fileUnitKey, runFromText, type RunStep, type Tile } from '../gfs.js'
import type { Errand } from './http-get.js'
import { cutMessages, isNotPresentPage, selectIdx } from '../unit.js'

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
  /**
   * The unit's raw bytes, unverified. Every request goes out under the errand: its deadline, and
   * its charge made before the first request leaves. Throws UpstreamFailure.
   */
  download (unit: FetchUnit, errand: Errand): Promise<Uint8Array>
  /** The URL (or path) a unit comes from, for logs and provenance. */
  locate (unit: FetchUnit): string
}

export function fileUnit (rs: RunStep, origin: Origin): FetchUnit {
  return { key: fileUnitKey(rs), run: rs.run, step: rs.step, origin }
}

export const DAY_DIR = /^gfs\.(\d{8})$/

/** Files a grid probe tries before it gives up. */
const PROBE_TRIES = 5

/**
 * The grid `read` finds in the newest file of a mirror, newest day first. A file failing as
 * `passable` is passed over, up to PROBE_TRIES files; then the last such failure is thrown.
 */
export async function probeNewest (
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
  throw last ?? new UpstreamFailure('missing', 'the mirror holds no GFS file', { where })
}

export function entriesOf (day: string, cycle: string, names: Iterable<string>): RunStep[] {
  const run = runFromText(day, Number(cycle))
  if (!/^\d\d$/.test(cycle) || Number.isNaN(run) || Number(cycle) % 6 !== 0) return []
  const out: RunStep[] = []
  for (const name of names) {
    const m = FILE_NAME.exec(name)
    if (m !== null && m[1] === cycle) out.push({ run, step: Number(m[2]) })
  }
  return out
}

export function levelsFromIdx (entries: readonly IdxEntry[]): number[] {
  const names = new Map<number, Set<string>>()
  for (const e of selectIdx(entries)) {
    const m = /^([\d.]+) mb$/.exec(e.level)
    if (m === null) continue
    const pa = Math.round(Number(m[1]) * 100 * 1000) / 1000
    if (!names.has(pa)) names.set(pa, new Set())
    names.get(pa)!.add(e.name)
  }
  return [...names]
    .filter(([, n]) => ['HGT', 'TMP', 'UGRD', 'VGRD'].every((x) => n.has(x)))
    .map(([v]) => v)
    .sort((a, b) => a - b)
}

/** The first message's grid: a probe that reads only that message. */
export function firstGrid (bytes: Uint8Array): LatLonGrid {
  return scanMessages(bytes)[0].grid
}

export function messageLength (head: Uint8Array): number {
  if (head.length < 16 || head[0] !== 0x47 || head[1] !== 0x52 || head[2] !== 0x49 || head[3] !== 0x42) {
    throw new UpstreamFailure('unusable', 'the probed file does not start with a GRIB message')
  }
  return head[12] * 0x1000000 + head[13] * 0x10000 + head[14] * 0x100 + head[15]
}

/** Without an `.idx`: scan the whole file once and keep the profile's messages. */
export function wholeFile (bytes: Uint8Array): Uint8Array {
  if (isNotPresentPage(bytes)) throw new UpstreamFailure('missing', 'upstream says the data file is not present')
  return cutMessages(bytes, scanOrUnusable(bytes))
}

export function scanOrUnusable (bytes: Uint8Array): GribField[] {
  try {
    return scanMessages(bytes)
  } catch (err) {
    throw new UpstreamFailure('unusable', `not usable GRIB2: ${(err as Error).message}`)
  }
}
