// A mirror directory in the bucket layout: `.idx` ranges read from the file, a file that
// vanished after listing, an empty mirror, and describe() before anything is fetched.
import t from 'tap'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildSampleTree } from '../helpers/upstream.js'
import { at, harness, rejection, tempDir } from './helpers.js'
import { RAW_DIR } from '../../src/source/fetch/disk-cache.js'

const P = { latitude: 52.2, longitude: 21.0, quality: 'best_available' as const }

t.test('directory mirror with .idx: only the needed messages are read', async (t) => {
  const root = await buildSampleTree(t, {
    idx: true,
    only: ['gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006', 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f012']
  })
  const h = await harness(t, { setting: { kind: 'mirror', location: root } })
  const r = await h.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h.account })
  const u = await h.source.fetch(r, { accountId: h.account })
  // the column's fields and the surface layer's 21 near-ground ones (RH at 2 m left: SPFH is there)
  t.equal(u.fields.length, 34 * 2 + 31 * 3 + 1 + 21)
  t.equal(u.url, join(root, 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'))
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 1, 'a mirror fetch is an attempt too')

  // a file listed but gone by the time it is read: missing, resolved again
  await rm(join(root, 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f012'))
  await rm(join(root, 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f012.idx'))
  const gone = await h.source.resolve({ ...P, time: at('2020-08-04T22:00:00Z'), accountId: h.account })
  t.equal(gone.unitKey, 'gfs/2020080412/f012')
  t.match(await rejection(h.source.fetch(gone, { accountId: h.account })), { code: 'outside_source_coverage' })

  // an .idx range past the end of the file is unusable
  await writeFile(
    join(root, 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006.idx'),
    '1:0:d=2020080412:HGT:500 mb:6 hour fcst:\n' +
    '2:100:d=2020080412:ABSV:500 mb:6 hour fcst:\n' +
    '3:4000000:d=2020080412:TMP:500 mb:6 hour fcst:\n' +
    '4:5000000:d=2020080412:ABSV:400 mb:6 hour fcst:\n'
  )
  await rm(join(h.cacheDir, RAW_DIR), { recursive: true })
  t.match(
    await rejection(h.source.fetch(r, { accountId: h.account })),
    { code: 'unusable_source_column', detail: /runs past the file/ }
  )
})

t.test('an empty mirror holds nothing: 404, and describe says so', async (t) => {
  const root = await tempDir(t, 'empty-mirror')
  await mkdir(join(root, 'gfs.20200804', '12', 'atmos'), { recursive: true })
  await writeFile(join(root, 'README'), 'not a run')
  const h = await harness(t, { setting: { kind: 'mirror', location: root } })
  t.match(
    await rejection(h.source.resolve({ ...P, time: at('2020-08-04T18:00:00Z'), accountId: h.account })),
    { code: 'outside_source_coverage', detail: /holds no GFS files/ }
  )
  const d = await h.source.describe()
  t.equal(d.status, 'unavailable')
  t.equal(d.firstValidTime, null)
})

t.test('a corrupt raw cache entry is dropped and fetched again', async (t) => {
  const root = await buildSampleTree(t, { only: ['gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f000'] })
  const h = await harness(t, { setting: { kind: 'mirror', location: root } })
  const r = await h.source.resolve({ ...P, time: at('2020-08-15T12:00:00Z'), accountId: h.account })
  const first = await h.source.fetch(r, { accountId: h.account })
  await writeFile(join(h.cacheDir, RAW_DIR, 'gfs/2020081512/f000.grib2'), 'garbage')
  const again = await h.source.fetch(r, { accountId: h.account })
  t.equal(again.fromCache, false)
  t.equal(again.sha256, first.sha256)
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 2)
  t.throws(() => h.source.onDisk('../escape'), /not a safe cache path/)
})

t.test('the raw cache index: read from disk at start (without blocking), kept up to date by writes', async (t) => {
  const { DiskCache } = await import('../../src/source/fetch/disk-cache.js')
  const { mkdtemp, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const dir = await mkdtemp(join(tmpdir(), 'aloft-disk-cache-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const record = (key: string) => ({
    unitKey: key, sha256: '', retrievedAt: new Date(0).toISOString(), url: 'x', bytes: 1
  })
  const first = new DiskCache(dir)
  t.notOk(first.has('gfs/2020081512/f000'), 'an empty directory holds nothing')
  await first.put('gfs/2020081512/f000', new Uint8Array([1]), record('gfs/2020081512/f000'))
  t.ok(first.has('gfs/2020081512/f000'), 'a write is seen at once')
  const restarted = new DiskCache(dir)
  await restarted.ready()
  t.ok(restarted.has('gfs/2020081512/f000'), 'a new process finds what is on disk once indexed')
  await restarted.remove('gfs/2020081512/f000')
  t.notOk(restarted.has('gfs/2020081512/f000'), 'a removal is seen at once')
})
