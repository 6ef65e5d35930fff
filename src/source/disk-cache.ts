// Raw unit bytes on disk under the cache directory, so a restart does not fetch again. Each
// unit is `<dir>/raw/<unit key>.grib2` plus a `.json` record written after it (atomic renames),
// so a record on disk always describes complete bytes.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
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

  constructor (cacheDir: string) {
    this.root = join(cacheDir, 'raw')
  }

  private paths (key: string): { data: string, meta: string } {
    if (!/^[A-Za-z0-9._/-]+$/.test(key) || key.split('/').includes('..')) throw new Error(`unit key ${JSON.stringify(key)} is not a safe cache path`)
    const base = join(this.root, key)
    return { data: base + '.grib2', meta: base + '.json' }
  }

  has (key: string): boolean {
    return existsSync(this.paths(key).meta)
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
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw err
    }
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
  }

  async remove (key: string): Promise<void> {
    const p = this.paths(key)
    await rm(p.meta, { force: true })
    await rm(p.data, { force: true })
  }
}
