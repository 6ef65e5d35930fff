// Raw unit bytes on disk under the cache directory, so a restart does not fetch again. Each
// unit is `<dir>/raw/<unit key>.grib2` plus a `.json` record written after it (atomic renames),
// so a record on disk always describes complete bytes.
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

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

export class DiskCache {
  private readonly root: string
  /**
   * Keys with a record on disk, read once from the directory and kept up to date by put/remove:
   * `has` runs on every profile request for every candidate run, so it must not touch the disk.
   * Another process writing the same directory is seen by `get`, which always reads the disk.
   */
  private keys: Set<string> | null = null

  constructor (cacheDir: string) {
    this.root = join(cacheDir, 'raw')
  }

  private paths (key: string): { data: string, meta: string } {
    if (!/^[A-Za-z0-9._/-]+$/.test(key) || key.split('/').includes('..')) {
      throw new Error(`unit key ${JSON.stringify(key)} is not a safe cache path`)
    }
    const base = join(this.root, key)
    return { data: base + '.grib2', meta: base + '.json' }
  }

  has (key: string): boolean {
    this.paths(key) // refuses keys that are not safe paths, as every other method does
    return this.index().has(key)
  }

  private index (): Set<string> {
    if (this.keys === null) {
      let names: string[] = []
      try {
        names = readdirSync(this.root, { recursive: true, encoding: 'utf8' })
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      }
      this.keys = new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0,
        -'.json'.length).split('\\').join('/')))
    }
    return this.keys
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
        this.keys?.delete(key)
        return null
      }
      throw err
    }
    this.keys?.add(key)
    if (sha256Hex(bytes) !== record.sha256) {
      await this.remove(key)
      return null
    }
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
    this.keys?.add(key)
  }

  async remove (key: string): Promise<void> {
    const p = this.paths(key)
    this.keys?.delete(key)
    await rm(p.meta, { force: true })
    await rm(p.data, { force: true })
  }
}
