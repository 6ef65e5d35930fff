// gridPointIndex: docs/DESIGN.md §3 index rounding on real fixture grids.
import t from 'tap'
import { decodeField, gridPointIndex, normalizeLongitude, scanMessages } from '../../src/grib/index.js'
import { expectedFile, fixture } from './helpers.js'

const PORBI = 'Porbi96+GFS-forecast-web-app/data/gfs/20200728/12z/gfs.pgrb2.0p25.f000' // 48..56N 13..25E, mode 64
const GLOBAL = 'NOAA-MDL+grib2io/tests/input_data/gfs.complex.grib2' // 0.25°, 90..-90, 0..359.75, mode 0
const regional = scanMessages(fixture(PORBI))[0].grid
const global = scanMessages(fixture(GLOBAL))[0].grid

t.test('a tie in latitude goes to the larger latitude', async (t) => {
  t.equal(gridPointIndex(regional, 52.125, 21)?.latitude, 52.25)
  t.equal(gridPointIndex(global, -0.125, 10)?.latitude, 0)
})

t.test('a tie in longitude goes to the larger longitude', async (t) => {
  t.equal(gridPointIndex(regional, 52, 21.125)?.longitude, 21.25)
  t.equal(gridPointIndex(global, 0, -0.125)?.longitude, 0, '-0.125 is 359.875: the tie goes east, to 360 = 0')
})

t.test('longitude is taken modulo 360 on a global grid and reported in (-180, 180]', async (t) => {
  const a = gridPointIndex(global, 40, -105.27)
  const b = gridPointIndex(global, 40, 254.73)
  const c = gridPointIndex(global, 40, 614.73)
  t.same(a, b)
  t.same(a, c)
  t.equal(a?.longitude, -105.25)
  t.equal(gridPointIndex(global, 0, 180)?.longitude, 180, '180 stays 180, not -180')
  t.equal(gridPointIndex(global, 0, 359.9)?.i, 0, 'the column after the last wraps to the first')
  t.equal(normalizeLongitude(-180), 180)
})

t.test('outside a regional grid the rounded index is null; half a cell beyond the edge rounds in', async (t) => {
  t.equal(gridPointIndex(regional, 47.8, 20), null, 'south of 48 - 0.125')
  t.equal(gridPointIndex(regional, 56.13, 20), null, 'north of 56 + 0.125')
  t.equal(gridPointIndex(regional, 52, 12.8), null, 'west of 13 - 0.125')
  t.equal(gridPointIndex(regional, 52, 25.125), null, 'the tie past the east edge rounds out')
  t.same(gridPointIndex(regional, 47.9, 12.9), { index: 0, i: 0, j: 0, latitude: 48, longitude: 13 })
  t.equal(gridPointIndex(regional, NaN, 13), null)
})

t.test('index follows the scanning mode: row 0 is south in mode 64, north in mode 0', async (t) => {
  t.equal(gridPointIndex(regional, 48, 13)?.index, 0)
  t.equal(gridPointIndex(regional, 56, 13)?.index, 32 * 49)
  t.equal(gridPointIndex(global, 90, 0)?.index, 0)
  t.equal(gridPointIndex(global, -90, 0)?.index, 720 * 1440)
  const p = gridPointIndex(global, 52.52, 21.01)
  t.same([p?.i, p?.j, p?.index], [84, 570, (720 - 570) * 1440 + 84])
})

t.test('the decoded value at the index is ecCodes\' nearest value, in mode 64 and in mode 0', async (t) => {
  for (const file of [PORBI, GLOBAL]) {
    const bytes = fixture(file)
    const fields = scanMessages(bytes)
    const e = expectedFile(file)
    const k = file === PORBI ? 30 : 0
    const v = decodeField(bytes, fields[k])
    const near = e.nearest[0]
    const p = gridPointIndex(fields[k].grid, near.lat, near.lon)
    t.equal(p?.index, near.index, `${file}: ecCodes' index`)
    t.equal(v[p?.index ?? -1], e.fields[k].nearest[0], `${file}: ecCodes' value`)
  }
})
