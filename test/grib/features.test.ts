// One behaviour per test, on real GRIB bytes; values are checked against the ecCodes expectations.
import t, { type Test } from 'tap'
import { dataParams, decodeField, GribError, initGrib, scanMessages } from '../../src/grib/index.js'
import { expectedFile, fixture, sha256f32 } from './helpers.js'

const PORBI = 'Porbi96+GFS-forecast-web-app/data/gfs/20200728/12z/gfs.pgrb2.0p25.f000'
const PYGRIB = 'jswhit+pygrib/sampledata/gfs.grb'
const GDAS = 'NOAA-EMC+wgrib2/tests/data/gdas.t12z.pgrb2.1p00.anl.75r'
const MISSING = 'mpiannucci+gribberish/test-data/gfs.t12z.pgrb2.0p25.f023-PV-TMP-missing.grib2'
const MVM2 = 'aloft-derived/gfs.t12z.pgrb2.0p25.f023-PV-TMP-mvm2.grib2'
const JPEG = 'NOAA-MDL+grib2io/tests/input_data/gfs.jpeg.grib2'
const PNG = 'NOAA-MDL+grib2io/tests/input_data/gfs.png.grib2'

function decodeMatches (t: Test, file: string, index: number): Float32Array {
  const bytes = fixture(file)
  const field = scanMessages(bytes)[index]
  const v = decodeField(bytes, field)
  t.equal(sha256f32(v), expectedFile(file).fields[index].sha256, `${file} field ${index} equals ecCodes`)
  return v
}

function nanCount (v: Float32Array): number { let n = 0; for (const x of v) if (Number.isNaN(x)) n++; return n }

t.before(initGrib)

t.test('scanning mode 64 (grib filter, rows south to north) and 0 (global, north to south)', async (t) => {
  const porbi = scanMessages(fixture(PORBI))[0].grid
  t.equal(porbi.scanningMode, 64)
  t.same([porbi.south, porbi.north, porbi.west, porbi.east, porbi.ni, porbi.nj], [48, 56, 13, 25, 49, 33])
  const global = scanMessages(fixture(GDAS))[0].grid
  t.equal(global.scanningMode, 0)
  t.same([global.la1, global.south, global.north, global.global], [90, -90, 90, true])
  decodeMatches(t, PORBI, 2)
  decodeMatches(t, GDAS, 0)
})

t.test('bitmap 0: points whose bit is clear are NaN', async (t) => {
  const bytes = fixture(PORBI)
  const f = scanMessages(bytes)[370]
  t.equal(f.bitmapIndicator, 0)
  t.equal(f.numberOfValues, 1617 - 208)
  const v = decodeMatches(t, PORBI, 370)
  t.equal(nanCount(v), 208)
})

t.test('bitmap 254 reuses the bitmap of an earlier field in the same message', async (t) => {
  const fields = scanMessages(fixture(PYGRIB))
  const f = fields[293]
  t.equal(f.bitmapIndicator, 254)
  const owner = fields.find((g) => g.message === f.message && g.bitmapIndicator === 0)
  t.ok(owner, 'the message defines a bitmap first')
  t.equal(f.sections.bitmap, owner?.sections.bitmap, 'same bitmap bytes')
  t.equal(nanCount(decodeMatches(t, PYGRIB, 293)), 1161)
})

t.test('bitmap 255: no point is missing', async (t) => {
  t.equal(scanMessages(fixture(GDAS))[0].bitmapIndicator, 255)
  t.equal(nanCount(decodeMatches(t, GDAS, 0)), 0)
})

t.test('5.3 with first-order spatial differencing', async (t) => {
  const bytes = fixture(PYGRIB)
  t.equal(dataParams(bytes, scanMessages(bytes)[0]).spatialOrder, 1)
  decodeMatches(t, PYGRIB, 0)
})

t.test('5.3 with second-order spatial differencing', async (t) => {
  const bytes = fixture(GDAS)
  t.equal(dataParams(bytes, scanMessages(bytes)[0]).spatialOrder, 2)
  decodeMatches(t, GDAS, 0)
})

t.test('5.3 written with order 0 (ecCodes 2.28 output) decodes as plain complex packing', async (t) => {
  const file = 'derived/gfs.t12z.pgrb2.0p25.f006'
  const bytes = fixture(file)
  const f = scanMessages(bytes)[140]
  t.same([f.packing, dataParams(bytes, f).spatialOrder], [3, 0])
  decodeMatches(t, file, 140)
})

t.test('5.2 complex packing without differencing', async (t) => {
  const file = 'nilsmagnus+grib/griblib/integrationtestdata/template5_2.grib2'
  t.equal(scanMessages(fixture(file))[0].packing, 2)
  decodeMatches(t, file, 0)
  decodeMatches(t, file, 1)
})

t.test('5.3 missing-value management 1: primary missing values become NaN', async (t) => {
  const bytes = fixture(MISSING)
  t.equal(dataParams(bytes, scanMessages(bytes)[0]).missingManagement, 1)
  t.equal(nanCount(decodeMatches(t, MISSING, 0)), 409080)
})

t.test('5.3 missing-value management 2: primary and secondary missing values become NaN', async (t) => {
  const bytes = fixture(MVM2)
  t.equal(dataParams(bytes, scanMessages(bytes)[0]).missingManagement, 2)
  t.equal(nanCount(decodeMatches(t, MVM2, 0)), 426145)
})

t.test('5.3 missing-value management 0 leaves all-ones values as data', async (t) => {
  t.equal(nanCount(decodeMatches(t, GDAS, 1)), 0)
})

t.test('0-bit constant fields, simple and complex packing', async (t) => {
  for (const [file, index] of [[PORBI, 0], [GDAS, 28], ['nilsmagnus+grib/griblib/integrationtestdata/constant.grb', 0],
    ['noritada+grib-rs/testdata/gdas.t12z.pgrb2.0p25.f000.46', 0],
    ['mpiannucci+gribberish/test-data/gfs.t18z.pgrb2.0p25.f186-RH.grib2', 0]] as const) {
    t.equal(scanMessages(fixture(file))[index].bitsPerValue, 0, `${file} is 0-bit`)
    const v = decodeMatches(t, file, index)
    t.ok(v.every((x) => x === v[0]), 'one value everywhere')
  }
})

t.test('5.40 JPEG 2000 and 5.41 PNG decode the same field to the same values', async (t) => {
  const jpeg = decodeMatches(t, JPEG, 0)
  const png = decodeMatches(t, PNG, 0)
  t.equal(scanMessages(fixture(JPEG))[0].packing, 40)
  t.equal(scanMessages(fixture(PNG))[0].packing, 41)
  t.equal(sha256f32(jpeg), sha256f32(png), 'grib2io packed one field both ways')
})

t.test('5.40 with a regional-style layout: CMC 0.24° grid, scanning mode 64, starting at 180°', async (t) => {
  const file = 'noritada+grib-rs/testdata/CMC_glb_TMP_ISBL_1_latlon.24x.24_2021051800_P000.grib2'
  const g = scanMessages(fixture(file))[0].grid
  t.same([g.scanningMode, g.west, g.global], [64, 180, true])
  decodeMatches(t, file, 0)
})

t.test('product templates 4.0, 4.1 and 4.8 give name, level and steps', async (t) => {
  const f41 = scanMessages(fixture('NOAA-EMC+wgrib2/tests/data/ref_simple_packing.grib2'))[0]
  t.same([f41.productTemplate, f41.name, f41.level.type, f41.level.value, f41.stepHours], [1, 'TMP', 100, 50000, 180])
  const f48 = scanMessages(fixture('Porbi96+GFS-forecast-web-app/data/gfs/20200804/12z/gfs.pgrb2.0p25.f006'))[439]
  t.same(
    [f48.productTemplate, f48.name, f48.stepHours, f48.stepEndHours, f48.level.name, f48.level.value],
    [8, 'TMAX', 0, 6, 'height_above_ground', 2]
  )
  const f40 = scanMessages(fixture('derived/gfs.t12z.pgrb2.0p25.f006')).find((f) => f.name === 'SPFH')
  t.same([f40?.productTemplate, f40?.level.type, f40?.referenceTime], [0, 100, '2020-08-04T12:00:00Z'])
})

t.test('isobaric levels are Pa, also below 1 hPa', async (t) => {
  const fields = scanMessages(fixture(PORBI))
  const hgt = fields.filter((f) => f.name === 'HGT' && f.level.type === 100).map((f) => f.level.value)
  t.ok(hgt.includes(40), '0.4 hPa is 40 Pa')
  t.ok(hgt.includes(100000), '1000 hPa is 100000 Pa')
  t.equal(hgt.length, 34)
})

t.test('multi-field messages: sections 4-7 repeated inside one message', async (t) => {
  const fields = scanMessages(fixture(PYGRIB))
  const messages = new Set(fields.map((f) => f.message))
  t.equal(messages.size, 308)
  t.equal(fields.length, 344)
  const u = fields[3]; const v = fields[4]
  t.same(
    [u.name, v.name, u.offset, v.offset, u.fieldInMessage, v.fieldInMessage],
    ['UGRD', 'VGRD', u.offset, u.offset, 0, 1]
  )
  t.ok(v.sections.data > u.sections.dataEnd - 1, 'second field has its own data section')
  decodeMatches(t, PYGRIB, 3)
  decodeMatches(t, PYGRIB, 4)
})

t.test('bytes before, between and after messages are skipped', async (t) => {
  const src = fixture('nilsmagnus+grib/griblib/integrationtestdata/template5_0.grib2')
  const [a, b] = scanMessages(src)
  const junk = new TextEncoder().encode('<html>not a GRIB byte\n</html>')
  const joined = new Uint8Array(junk.length * 3 + a.length + b.length)
  joined.set(junk, 0)
  joined.set(src.subarray(a.offset, a.offset + a.length), junk.length)
  joined.set(junk, junk.length + a.length)
  joined.set(src.subarray(b.offset, b.offset + b.length), 2 * junk.length + a.length)
  joined.set(junk, 2 * junk.length + a.length + b.length)
  const fields = scanMessages(joined)
  t.same(fields.map((f) => f.offset), [junk.length, 2 * junk.length + a.length])
  t.equal(sha256f32(decodeField(joined, fields[1])), sha256f32(decodeField(src, b)))
})

t.test('edition 1 is refused with a clear error', async (t) => {
  const bytes = fixture(GDAS).slice(0, 200)
  // a GRIB1 indicator section: 3-byte length, then edition 1 in octet 8
  bytes.set([0x47, 0x52, 0x49, 0x42, 0x00, 0x00, 0xc8, 0x01])
  t.throws(() => scanMessages(bytes), { name: 'GribError', reason: 'edition_1', offset: 0 })
})

t.test('an unknown data representation template is refused with unsupported_packing when decoded', async (t) => {
  const bytes = fixture('nilsmagnus+grib/griblib/integrationtestdata/template5_0.grib2').slice()
  const f = scanMessages(bytes)[0]
  bytes[f.sections.drs + 10] = 50 // template 5.50 (spectral)
  const [g] = scanMessages(bytes)
  t.equal(g.packing, 50, 'the index still lists the field')
  t.equal(g.bitsPerValue, null)
  t.throws(() => decodeField(bytes, g),
    { name: 'GribError', reason: 'unsupported_packing', offset: f.sections.drs + 9 })
  t.match(String((() => { try { decodeField(bytes, g) } catch (e) { return (e as Error).message } })()), /5\.50/)
})

t.test('decodeField writes into the caller\'s array (a SharedArrayBuffer view)', async (t) => {
  const bytes = fixture(PORBI)
  const f = scanMessages(bytes)[2]
  const shared = new Float32Array(new SharedArrayBuffer(4 * (f.grid.numberOfPoints + 10)))
  const v = decodeField(bytes, f, shared)
  t.equal(v.buffer, shared.buffer, 'no copy')
  t.equal(v.length, f.grid.numberOfPoints)
  t.equal(sha256f32(v), expectedFile(PORBI).fields[2].sha256)
  t.throws(
    () => decodeField(bytes, f, new Float32Array(10)),
    new GribError('bad_output', 'output holds 10 values, the field has 1617')
  )
})
