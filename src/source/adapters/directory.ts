// mirror:<directory>: the bucket layout on a local disk. Byte ranges from the `.idx` beside each
// file, or one scan of the whole file when there is none.
import { open, readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { parseIdx, type LatLonGrid } from '../../grib/index.js'
import { UpstreamFailure } from '../errors.js'
import type { Errand } from './http-get.js'
import { bucketKey, type RunStep } from '../gfs.js'
import { MAX_RANGE_GAP, bridge, coalesce, columnLevels, extract, selectIdx } from '../unit.js'
import {
  DAY_DIR, entriesOf, fileUnit, probeNewest, scanOrUnusable, wholeFile, type Adapter, type FetchUnit
} from './adapter.js'

/** Files the start-up check opens, newest first, looking for one that starts as GRIB does. */
const CHECKED_FILES = 5

/**
 * Why a mirror directory cannot serve, or null when it can: it must exist and hold at least one
 * file in the bucket layout that starts as a GRIB message. Checked at start, so a wrong path is
 * one clear message instead of a service that answers every request with a 404.
 */
export async function mirrorDirectoryProblem (root: string): Promise<string | null> {
  const info = await stat(root).catch((err: NodeJS.ErrnoException) => err)
  if (info instanceof Error) {
    return info.code === 'ENOENT' ? `the mirror directory ${root} does not exist` : `cannot read ${root}: ${info.code}`
  }
  if (!info.isDirectory()) return `the mirror ${root} is not a directory`
  const mirror = new DirectoryAdapter(root)
  const newest: string[] = []
  for (const day of (await mirror.listDays()).sort().reverse()) {
    if (newest.length >= CHECKED_FILES) break
    const files = (await mirror.listDay(day)).sort((a, b) => b.run - a.run || a.step - b.step)
    newest.push(...files.slice(0, CHECKED_FILES - newest.length).map((rs) => mirror.locate(fileUnit(rs, 'mirror'))))
  }
  for (const path of newest) if (await startsAsGrib(path)) return null
  const layout = 'gfs.YYYYMMDD/CC/atmos/gfs.tCCz.pgrb2.0p25.fFFF'
  return newest.length === 0
    ? `the mirror directory ${root} holds no GFS files in the bucket layout (${layout})`
    : `the mirror directory ${root} holds files named as GFS GRIB2 (${layout}), but the newest ${newest.length} ` +
      'are not GRIB'
}

async function startsAsGrib (path: string): Promise<boolean> {
  const head = new Uint8Array(4)
  try {
    const handle = await open(path)
    try {
      await handle.read(head, 0, 4, 0)
    } finally {
      await handle.close()
    }
  } catch {
    return false // unreadable (a directory under a file's name, no permission): not a usable file
  }
  return new TextDecoder().decode(head) === 'GRIB'
}

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

  async download (unit: FetchUnit, errand: Errand): Promise<Uint8Array> {
    const path = this.locate(unit)
    // a local mirror is read at once: the attempt is charged as it starts
    if (Date.now() > errand.deadline) throw new UpstreamFailure('timeout', 'the deadline passed before the read')
    await errand.charge()
    const idx = await this.read(path + '.idx').catch((err) => {
      if (err instanceof UpstreamFailure && err.kind === 'missing') return null
      throw err
    })
    if (idx === null) return wholeFile(await this.read(path))
    const spans = bridge(coalesce(selectIdx(parseIdx(new TextDecoder().decode(idx)))), MAX_RANGE_GAP)
    const handle = await open(path).catch(() => {
      throw new UpstreamFailure('missing', 'the file is not in the mirror', { where: path })
    })
    try {
      const size = (await handle.stat()).size
      const parts: Uint8Array[] = []
      for (const { range: r } of spans) {
        const end = r.end ?? size - 1
        const buf = new Uint8Array(end - r.start + 1)
        const { bytesRead } = await handle.read(buf, 0, buf.length, r.start)
        if (bytesRead !== buf.length) {
          throw new UpstreamFailure('unusable', `.idx range ${r.start}-${end} runs past the file's ${size} bytes`,
            { where: path })
        }
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
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
        return []
      }
      throw err
    }
  }

  private async read (path: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await readFile(path))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new UpstreamFailure('missing', 'the file is not in the mirror', { where: path })
      }
      throw err
    }
  }
}
