// The raw disk cache: bounded in bytes with the least recently used units out first, indexed
// without blocking at start, and never serving bytes that no longer match their sha256.
import t from 'tap'
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DiskCache, RAW_DIR, sha256Hex } from '../../src/source/fetch/disk-cache.js'
import { tempDir } from './helpers.js'

const unit = (n: number, size = 1000): Uint8Array => Uint8Array.from({ length: size }, (_, k) => (k * 7 + n) % 251)
const record = (key: string, bytes: Uint8Array) =>
  ({ unitKey: key, sha256: sha256Hex(bytes), retrievedAt: '2020-08-04T18:00:00.000Z', url: 'test',
    bytes: bytes.length })

async function put (cache: DiskCache, key: string, bytes: Uint8Array): Promise<void> {
  await cache.put(key, bytes, record(key, bytes))
}

t.test('past the bound the least recently used units go first', async (t) => {
  const dir = await tempDir(t, 'disk')
  const cache = new DiskCache(dir, 3500)
  await cache.ready()
  for (const n of [1, 2, 3]) await put(cache, `gfs/u${n}`, unit(n))
  t.ok(await cache.get('gfs/u1'), 'u1 used: now the most recent')
  await put(cache, 'gfs/u4', unit(4))
  t.notOk(cache.has('gfs/u2'), 'the least recently used went')
  t.ok(cache.has('gfs/u1') && cache.has('gfs/u3') && cache.has('gfs/u4'))
  t.ok(cache.size <= 3500)
  t.equal(await cache.get('gfs/u2'), null, 'and its files are gone')
  await put(cache, 'gfs/big', unit(5, 5000))
  t.ok(cache.has('gfs/big'), 'a unit larger than the bound is kept (it serves the request that fetched it)')
  t.same([1, 3, 4].filter((n) => cache.has(`gfs/u${n}`)), [], 'everything older went')
})

t.test('a restart indexes the directory without blocking, oldest first by use', async (t) => {
  const dir = await tempDir(t, 'disk')
  const first = new DiskCache(dir)
  await first.ready()
  for (const n of [1, 2, 3]) await put(first, `gfs/u${n}`, unit(n))
  // u2 was used last before the restart, u3 first
  const raw = (n: number) => join(dir, RAW_DIR, `gfs/u${n}.grib2`)
  await utimes(raw(3), new Date(1000), new Date(1000))
  await utimes(raw(1), new Date(2000), new Date(2000))
  await utimes(raw(2), new Date(3000), new Date(3000))
  const second = new DiskCache(dir, 2500)
  t.notOk(second.has('gfs/u1'), 'nothing is known before the index is built')
  await second.ready()
  t.ok(second.has('gfs/u1') && second.has('gfs/u2'))
  t.notOk(second.has('gfs/u3'), 'over the bound at start: the least recently used went')
  t.equal(second.size, 2000)
})

t.test('bytes that no longer match their record are removed, never served', async (t) => {
  const dir = await tempDir(t, 'disk')
  const cache = new DiskCache(dir)
  await cache.ready()
  const bytes = unit(9)
  await put(cache, 'gfs/u9', bytes)
  const path = join(dir, RAW_DIR, 'gfs/u9.grib2')
  await writeFile(path, (await readFile(path)).subarray(0, 500)) // truncated on disk
  t.equal(await cache.get('gfs/u9'), null)
  t.notOk(cache.has('gfs/u9'))
  t.equal(cache.size, 0)
})

t.test('a unit another instance put in a shared directory is found by get', async (t) => {
  const dir = await tempDir(t, 'disk')
  const a = new DiskCache(dir)
  const b = new DiskCache(dir)
  await a.ready()
  await b.ready()
  await put(a, 'gfs/shared', unit(3))
  t.notOk(b.has('gfs/shared'), 'b\'s index does not know it yet')
  t.ok(await b.get('gfs/shared'))
  t.ok(b.has('gfs/shared'), 'now it does')
})

t.test('units of an older content (before the surface layer) are removed at start, never served', async (t) => {
  const dir = await tempDir(t, 'disk')
  const bytes = unit(1)
  await mkdir(join(dir, 'raw', 'gfs'), { recursive: true })
  await writeFile(join(dir, 'raw', 'gfs/u1.grib2'), bytes)
  await writeFile(join(dir, 'raw', 'gfs/u1.json'), JSON.stringify(record('gfs/u1', bytes)))
  const cache = new DiskCache(dir)
  await cache.ready()
  t.notOk(cache.has('gfs/u1'), 'not indexed')
  t.equal(await cache.get('gfs/u1'), null, 'not served')
  t.equal(await stat(join(dir, 'raw')).catch(() => null), null, 'the old folder is gone')
})
