// Golden URLs: exactly what the `noaa` source asks of NOAA (the grib-filter query string, the
// bucket keys, `.idx` byte ranges, the listings), replayed against the local stand-in.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseIdx } from '../../src/grib/index.js'
import { bucketKey, filterQuery, tileOf } from '../../src/source/index.js'
import { NOAA_DEFAULTS, NoaaAdapter } from '../../src/source/adapters/index.js'
import { Throttle } from '../../src/source/adapters/throttle.js'
import { coalesce, selectIdx } from '../../src/source/unit.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { at, harness } from './helpers.js'
import { repoPath } from '../helpers/paths.js'

const RUN = Date.UTC(2020, 7, 4, 12)
const LEVELS = 'lev_0.01_mb=on&lev_0.02_mb=on&lev_0.04_mb=on&lev_0.07_mb=on&lev_0.1_mb=on&lev_0.2_mb=on&' +
  'lev_0.4_mb=on&lev_0.7_mb=on&lev_1_mb=on&lev_2_mb=on&lev_3_mb=on&lev_5_mb=on&lev_7_mb=on&lev_10_mb=on&lev_15_mb=on&' +
  'lev_20_mb=on&lev_30_mb=on&lev_40_mb=on&lev_50_mb=on&lev_70_mb=on&lev_100_mb=on&lev_150_mb=on&' +
  'lev_200_mb=on&lev_250_mb=on&lev_300_mb=on&lev_350_mb=on&lev_400_mb=on&lev_450_mb=on&lev_500_mb=on&' +
  'lev_550_mb=on&lev_600_mb=on&lev_650_mb=on&lev_700_mb=on&lev_750_mb=on&lev_800_mb=on&lev_850_mb=on&' +
  'lev_900_mb=on&lev_925_mb=on&lev_950_mb=on&lev_975_mb=on&lev_1000_mb=on&lev_surface=on&' +
  // the surface layer's near-ground fields (docs/DESIGN.md §8)
  'lev_2_m_above_ground=on&lev_10_m_above_ground=on&lev_20_m_above_ground=on&lev_30_m_above_ground=on&' +
  'lev_40_m_above_ground=on&lev_50_m_above_ground=on&lev_80_m_above_ground=on&lev_100_m_above_ground=on'
const FILTER_QUERY = 'dir=%2Fgfs.20200804%2F12%2Fatmos&file=gfs.t12z.pgrb2.0p25.f006' +
  '&var_HGT=on&var_PRES=on&var_RH=on&var_SPFH=on&var_TMP=on&var_UGRD=on&var_VGRD=on' +
  `&${LEVELS}&subregion=&leftlon=21&rightlon=21.75&toplat=52.75&bottomlat=52`

t.test('pure: NOAA URLs of a unit', async (t) => {
  const throttle = new Throttle()
  t.teardown(() => throttle.close())
  const noaa = new NoaaAdapter({ throttle, timeoutMs: 1000 }, 4)
  const point = { index: 0, i: 84, j: 569, latitude: 52.25, longitude: 21 }
  const unit = noaa.unitFor({ run: RUN, step: 6, via: ['filter', 'bucket'] }, point)
  t.equal(noaa.locate(unit), `https://nomads.ncep.noaa.gov/cgi-bin/filter_gfs_0p25.pl?${FILTER_QUERY}`)
  t.equal(
    noaa.locate(unit.alternate!),
    'https://noaa-gfs-bdp-pds.s3.amazonaws.com/gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'
  )
  t.equal(unit.alternate!.key, 'gfs/2020080412/f006')
  const old = noaa.unitFor({ run: RUN, step: 6, via: ['bucket'] }, point)
  t.equal(old.origin, 'bucket')
  t.equal(old.alternate, undefined)
  t.equal(noaa.unitFor({ run: RUN, step: 6, via: ['filter'] }, point).alternate, undefined)
  t.equal(bucketKey({ run: Date.UTC(2024, 0, 2, 18), step: 123 }), 'gfs.20240102/18/atmos/gfs.t18z.pgrb2.0p25.f123')
  t.same(
    tileOf(1439, 720, 8),
    { size: 8, tj: 90, ti: 179, bottomlat: 90, toplat: 90, leftlon: 358, rightlon: 359.75 },
    'the last tile stops at the grid edge'
  )
  t.equal(filterQuery({ run: RUN, step: 6 }, tileOf(84, 569, 4)), FILTER_QUERY)
  t.same(NOAA_DEFAULTS, {
    filterUrl: 'https://nomads.ncep.noaa.gov/cgi-bin/filter_gfs_0p25.pl',
    listingUrl: 'https://nomads.ncep.noaa.gov/pub/data/nccf/com/gfs/prod/',
    bucketUrl: 'https://noaa-gfs-bdp-pds.s3.amazonaws.com'
  })
})

t.test('.idx ranges of a real current-GFS inventory (kerchunk 2023-11-04 f000)', async (t) => {
  const grib = repoPath('test/fixtures/grib/')
  const text = await readFile(
    join(grib, 'fsspec+kerchunk/tests/grib_idx_fixtures/20231104/gfs.t00z.pgrb2.0p25.f000.idx'),
    'utf8'
  )
  const entries = parseIdx(text)
  t.equal(entries.length, 696)
  const chosen = selectIdx(entries)
  t.equal(chosen.filter((e) => e.name === 'SPFH').length > 0, true, 'SPFH chosen over RH')
  t.equal(chosen.filter((e) => e.name === 'RH').length, 0, 'no RH, at 2 m neither (SPFH at 2 m is there)')
  t.ok(chosen.some((e) => e.name === 'HGT' && e.level === 'surface'))
  t.equal(chosen.length, 206 + 21,
    'HGT, TMP, SPFH, UGRD, VGRD on 41 levels + HGT:surface + the surface layer\'s 21 near-ground fields')
  t.equal(chosen.filter((e) => / m above ground$/.test(e.level)).length, 20)
  t.ok(chosen.some((e) => e.name === 'PRES' && e.level === 'surface'))
  const ranges = coalesce(chosen).map((r) => `bytes=${r.start}-${r.end ?? ''}`)
  t.equal(ranges.length, 128, 'adjacent records merged')
  t.same(ranges.slice(0, 3), ['bytes=7347236-8862209', 'bytes=8886320-9826682', 'bytes=12325237-13374964'])
  // (wind 20…100 m, TMP, SPFH and PRES at 80 m and TMP at 100 m are adjacent in the file: one range)
  t.same(ranges.slice(-2), ['bytes=423120030-425024478', 'bytes=455258033-470665732'])
})

t.test('noaa against the stand-in: listings, filter query, bucket fallback with ranges', async (t) => {
  const { server } = await startSampleUpstream(t, {
    spfh: true, only: ['gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006']
  })
  const h = await harness(t, {
    setting: { kind: 'noaa' },
    noaaUrls: { filterUrl: server.filterUrl, listingUrl: server.listingUrl, bucketUrl: server.bucketUrl },
    fetch: { retries: 0 }
  })
  const r = await h.source.resolve({
    latitude: 52.2, longitude: 21.1, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: h.account
  })
  t.equal(r.unit.origin, 'filter')
  t.same(server.requests.map((q) => q.url).sort(), [
    '/?list-type=2&prefix=gfs.&delimiter=%2F',
    '/?list-type=2&prefix=gfs.20200804%2F&delimiter=%2F',
    '/?list-type=2&prefix=gfs.20200804%2F12%2Fatmos%2F&delimiter=%2F',
    '/pub/data/nccf/com/gfs/prod/',
    '/pub/data/nccf/com/gfs/prod/gfs.20200804/',
    '/pub/data/nccf/com/gfs/prod/gfs.20200804/12/atmos/'
  ], 'discovery: NOMADS listing pages and S3 ListObjectsV2')
  const mark = server.requests.length
  const u = await h.source.fetch(r, { accountId: h.account })
  t.same(server.requests.slice(mark).map((q) => q.url), [`/cgi-bin/filter_gfs_0p25.pl?${FILTER_QUERY}`])
  t.equal(u.origin, 'filter')
  t.ok(u.fields.some((f) => f.name === 'SPFH' && f.packing === 0), 'repacked with simple packing')

  // the filter fails: the same (run, step) comes from the bucket, by .idx byte ranges
  server.fail({ match: '/cgi-bin/', mode: 502 })
  const far = await h.source.resolve({
    latitude: 55.1, longitude: 14.1, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: h.account
  })
  const mark2 = server.requests.length
  const b = await h.source.fetch(far, { accountId: h.account })
  t.equal(b.origin, 'bucket')
  t.equal(b.unitKey, 'gfs/2020080412/f006')
  const asked = server.requests.slice(mark2).map((q) => `${q.url}${q.range === null ? '' : ` ${q.range}`}`)
  t.equal(
    asked[0].startsWith('/cgi-bin/filter_gfs_0p25.pl?dir=%2Fgfs.20200804%2F12%2Fatmos&file=gfs.t12z.pgrb2.0p25.f006&'),
    true
  )
  t.same(asked.slice(1), [
    '/gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006.idx',
    '/gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006 bytes=0-' // the derived file holds only profile fields: one range
  ])
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 3, 'filter, failed filter, bucket: three attempts')
  t.ok(h.log.lines.some((l) => /filter failed .* trying bucket/.test(l)))
})
