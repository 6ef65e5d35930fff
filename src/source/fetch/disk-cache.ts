// Raw unit bytes on disk under the cache directory, so a restart does not fetch again. Each
// unit is `<dir>/<RAW_DIR>/<unit key>.grib2` plus a `.json` record written after it (atomic renames),
// so a record on disk always describes complete bytes; bytes whose sha256 no longer matches their
// record are removed and fetched again, never served. The directory is bounded in bytes: the
// least recently used units go first. Several instances may share the directory.
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'

export interface CachedRecord {
  unitKey: string
  sha256: string
  retrievedAt: string // ISO 8601
  url: string
  bytes: number
}

export function sha256Hex (bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

interface Entry { bytes: number }

/**
 * The raw cache's folder, named for what a unit holds: units cut before the surface layer
 * (docs/DESIGN.md §8) lack its fields, so a new content starts a folder of its own and the older
 * ones are removed (UNITS_BEFORE), rather than served without those fields until evicted.
 */
export const RAW_DIR = 'raw-2'
const UNITS_BEFORE = ['raw']

export class DiskCache {
  private readonly root: string
  /**
   * Units with a record on disk and their sizes, least recently used first (Map order). Built once,
   * without blocking, from the directory; kept up to date by get/put/remove/look. `has` runs on
   * every request for every candidate run, so it never touches the disk. What another process or
   * instance writes to a shared directory is seen by `look` (a stat, only for a unit not known
   * here) and by `get`, which always reads the disk.
   */
  private readonly entries = new Map<string, Entry>()
  private total = 0
  /** Changes whenever a unit is stored or removed (see Catalog.generation). */
  generation = 0
  private indexed: Promise<void> | null = null

  /** `maxBytes`: the bound on the bytes of units kept (records are not counted). */
  constructor (cacheDir: string, private readonly maxBytes = Number.POSITIVE_INFINITY) {
    this.root = join(cacheDir, RAW_DIR)
    this.cacheDir = cacheDir
  }

  private readonly cacheDir: string

  private paths (key: string): { data: string, meta: string } {
    checkKey(key)
    const base = join(this.root, key)
    return { data: base + '.grib2', meta: base + '.json' }
  }

  /**
   * Why units cannot be written now, or null when they can: a tiny file is written and removed,
   * which also catches a read-only file system (root passes every permission check).
   */
  async unwritable (): Promise<string | null> {
    const probe = join(this.root, `.writable-${process.pid}-${randomBytes(4).toString('hex')}`)
    try {
      await mkdir(this.root, { recursive: true })
      await writeFile(probe, '')
      await rm(probe, { force: true })
      return null
    } catch (err) {
      return `the cache directory cannot be written: ${(err as NodeJS.ErrnoException).code ?? 'failed'}`
    }
  }

  /** Resolves once the directory has been indexed (the first call starts it). */
  async ready (): Promise<void> {
    this.indexed ??= this.index()
    await this.indexed
    this.isReady = true
  }

  /** Set once ready() has resolved: callers then need not wait for it. */
  isReady = false

  /** Is the unit cached? Only after ready(): until then nothing is known, so nothing is. */
  has (key: string): boolean {
    if (this.entries.has(key)) return true // a key held was checked when it was stored
    checkKey(key) // refuses keys that are not safe paths, as every other method does
    return false
  }

  /** Looks at the directory under way, by unit key: asks for one unit at once share one. */
  private readonly looking = new Map<string, Promise<boolean>>()

  /**
   * Is the unit cached, whoever wrote it? `has`, or else a look at the directory itself: its record
   * and bytes (the record is renamed into place after the bytes, so a record means whole bytes). A
   * unit found is remembered, so `has` answers for it from then on. A unit not found is not
   * remembered as absent: another process may write it at any moment.
   */
  async look (key: string): Promise<boolean> {
    if (this.has(key)) return true
    let pending = this.looking.get(key)
    if (pending === undefined) {
      pending = this.lookOnDisk(key).finally(() => this.looking.delete(key))
      this.looking.set(key, pending)
    }
    return await pending
  }

  private async lookOnDisk (key: string): Promise<boolean> {
    const p = this.paths(key)
    const [meta, data] = await Promise.all([stat(p.meta).catch(() => null), stat(p.data).catch(() => null)])
    if (meta === null || data === null) return false
    if (!this.entries.has(key)) this.remember(key, data.size)
    return true
  }

  /** Bytes of units held now. */
  get size (): number { return this.total }

  private async index (): Promise<void> {
    const found: Array<{ key: string, bytes: number, used: number }> = []
    const walk = async (dir: string): Promise<void> => {
      let names
      try {
        names = await readdir(dir, { withFileTypes: true })
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
        throw err
      }
      for (const d of names) {
        const path = join(dir, d.name)
        if (d.isDirectory()) await walk(path)
        else if (d.name.endsWith('.json')) {
          const key = relative(this.root, path).slice(0, -'.json'.length).split(sep).join('/')
          const data = await stat(path.slice(0, -'.json'.length) + '.grib2').catch(() => null)
          if (data !== null) found.push({ key, bytes: data.size, used: data.mtimeMs })
        }
      }
    }
    for (const old of UNITS_BEFORE) await rm(join(this.cacheDir, old), { recursive: true, force: true })
    await walk(this.root)
    for (const f of found.sort((a, b) => a.used - b.used)) {
      if (!this.entries.has(f.key)) this.remember(f.key, f.bytes) // a put during indexing is newer
    }
    await this.evict()
  }

  /** The bytes and their record; null when absent or when the bytes no longer match (then removed). */
  async get (key: string): Promise<{ bytes: Uint8Array, record: CachedRecord } | null> {
    const p = this.paths(key)
    let record: CachedRecord
    let bytes: Uint8Array
    try {
      record = JSON.parse(await readFile(p.meta, 'utf8')) as CachedRecord
      bytes = new Uint8Array(await readFile(p.data))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.forget(key)
        return null
      }
      throw err
    }
    if (sha256Hex(bytes) !== record.sha256) {
      await this.remove(key)
      return null
    }
    this.remember(key, bytes.length)
    // the file's time is its place in the order after a restart
    const now = new Date()
    utimes(p.data, now, now).catch(() => {})
    return { bytes, record }
  }

  async put (key: string, bytes: Uint8Array, record: CachedRecord): Promise<void> {
    const p = this.paths(key)
    await mkdir(dirname(p.data), { recursive: true })
    const tmp = `.${randomBytes(6).toString('hex')}.tmp`
    await writeFile(p.data + tmp, bytes)
    await rename(p.data + tmp, p.data)
    await writeFile(p.meta + tmp, JSON.stringify(record))
    await rename(p.meta + tmp, p.meta)
    this.remember(key, bytes.length)
    await this.evict(key)
  }

  async remove (key: string): Promise<void> {
    const p = this.paths(key)
    this.forget(key)
    await rm(p.meta, { force: true })
    await rm(p.data, { force: true })
  }

  /** Least recently used units out until the bound holds; never `keep` (the unit just stored). */
  private async evict (keep?: string): Promise<void> {
    for (const key of [...this.entries.keys()]) {
      if (this.total <= this.maxBytes) return
      if (key !== keep) await this.remove(key)
    }
  }

  private remember (key: string, bytes: number): void {
    this.generation++
    this.forget(key)
    this.entries.set(key, { bytes })
    this.total += bytes
  }

  private forget (key: string): void {
    const old = this.entries.get(key)
    if (old === undefined) return
    this.generation++
    this.entries.delete(key)
    this.total -= old.bytes
  }
}

/** Throws unless the unit key is a safe relative path under the cache root. */
function checkKey (key: string): void {
  if (!/^[A-Za-z0-9._/-]+$/.test(key) || key.split('/').includes('..')) {
    throw new Error(`unit key ${JSON.stringify(key)} is not a safe cache path`)
  }
}
