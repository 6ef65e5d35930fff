// NOAA .idx inventories, parsed by name and level on the real fixture files.
import t from 'tap'
import { findIdx, GribError, isobaricLevelText, parseIdx, scanMessages } from '../../src/grib/index.js'
import { fixture } from './helpers.js'

const text = (name: string): string => new TextDecoder().decode(fixture(name))
const F000 = 'fsspec+kerchunk/tests/grib_idx_fixtures/20231104/gfs.t00z.pgrb2.0p25.f000.idx'

t.test('every record of a full GFS inventory parses', async (t) => {
  const entries = parseIdx(text(F000))
  t.equal(entries.length, 696)
  t.same(entries[0], {
    message: 1, start: 0, end: entries[1].start, date: '2023110400', name: 'PRMSL', level: 'mean sea level', step: 'anl'
  })
})

t.test('HGT:1000 mb is found by name and level although it is out of order', async (t) => {
  const entries = parseIdx(text(F000))
  const at = entries.findIndex((e) => e.name === 'HGT' && e.level === '1000 mb')
  const prev = entries.findIndex((e) => e.name === 'HGT' && e.level === '975 mb')
  t.ok(at > prev + 1, 'not next to 975 mb')
  const r = findIdx(entries, 'HGT', '1000 mb')
  t.same(r, { start: entries[at].start, end: entries[at + 1].start })
  t.ok(findIdx(entries, 'SPFH', '500 mb'), 'current GFS has SPFH on pressure levels')
  t.equal(findIdx(entries, 'HGT', '1001 mb'), null)
})

t.test('the last record ends at the file size when it is known, else null', async (t) => {
  const idx = text('derived/gfs.t12z.pgrb2.0p25.f006.idx')
  const size = fixture('derived/gfs.t12z.pgrb2.0p25.f006').length
  t.equal(parseIdx(idx).at(-1)?.end, null)
  t.equal(parseIdx(idx, size).at(-1)?.end, size)
})

t.test('byte ranges from the derived .idx cut exactly the messages the decoder finds', async (t) => {
  const bytes = fixture('derived/gfs.t12z.pgrb2.0p25.f006')
  const entries = parseIdx(text('derived/gfs.t12z.pgrb2.0p25.f006.idx'), bytes.length)
  const fields = scanMessages(bytes)
  t.equal(entries.length, fields.length)
  const wrong: string[] = []
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k]
    const [f] = scanMessages(bytes.subarray(e.start, e.end!))
    if (f.name !== e.name || f.offset !== 0 || f.length !== e.end! - e.start) {
      wrong.push(`${e.message}:${e.name}:${e.level}`)
    }
  }
  t.same(wrong, [], 'every range holds one whole message of the named variable')
  // This .idx writes hPa-coded levels divided by 100 once too often ('500 mb' appears as '5 mb');
  // only the Pa-coded 0.4 mb is right. Lookups by level text therefore need a correct inventory.
  t.equal(isobaricLevelText(fields[0].level.value!), entries[0].level, '0.4 mb agrees')
})

t.test('isobaric level text as NOAA writes it', async (t) => {
  t.same([50000, 40, 1, 100000, 750].map(isobaricLevelText), ['500 mb', '0.4 mb', '0.01 mb', '1000 mb', '7.5 mb'])
})

t.test('other inventories: pgrb2b, a 100-record cut, f021', async (t) => {
  const pgrb2b = 'Open-S2+gis-tools/tests/readers/grib2/fixtures/gfs.20241214/12/atmos/gfs.t12z.pgrb2b.1p00.f003.idx'
  t.equal(parseIdx(text(pgrb2b)).length, 349)
  t.equal(parseIdx(text('fsspec+kerchunk/tests/gfs.t00z.pgrb2.0p25.f006.test-limit-100.idx')).length, 100)
  const f021 = parseIdx(text('fsspec+kerchunk/tests/grib_idx_fixtures/20231104/gfs.t00z.pgrb2.0p25.f021.idx'))
  t.equal(findIdx(f021, 'TMP', '2 m above ground') !== null, true)
})

t.test('a line that is not an inventory record is refused with bad_idx', async (t) => {
  t.throws(() => parseIdx('1:0:d=2023110400:HGT:500 mb:anl:\n<html>\n'), { name: 'GribError', reason: 'bad_idx' })
  t.throws(() => parseIdx('garbage'), GribError)
})
