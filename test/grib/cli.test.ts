// `aloft grib inspect|value`, through the module's run() with captured output.
import t from 'tap'
import { fileURLToPath } from 'node:url'
import { run } from '../../src/cli/grib.js'
import { FIXTURES } from './helpers.js'

const path = (name: string): string => fileURLToPath(new URL(name, FIXTURES))
const PORBI = path('Porbi96+GFS-forecast-web-app/data/gfs/20200728/12z/gfs.pgrb2.0p25.f000')
const PYGRIB = path('jswhit+pygrib/sampledata/gfs.grb')

async function cli (...args: string[]): Promise<{ code: number, out: string, err: string }> {
  let out = ''; let err = ''
  const code = await run(args, { out: (s) => { out += s }, err: (s) => { err += s } })
  return { code, out, err }
}

t.test('inspect prints one line per field with name, level, step, grid and packing', async (t) => {
  const r = await cli('inspect', PYGRIB)
  t.equal(r.code, 0)
  const lines = r.out.trimEnd().split('\n')
  t.equal(lines.length, 344)
  t.match(lines[0], /^\s+1\s+HGT\s+10 hPa \(1000 Pa\)\s+72h\s+2011-10-08T00:00:00Z\s+regular_ll /)
  t.match(lines[0], / regular_ll 144x73 2\.5x2\.5deg .*grid_complex_spatial_differencing 16bit$/)
  t.match(lines[293], /VGRD\s+height_above_sea 1829 .* bitmap$/)
})

t.test('inspect --json is an array of field records', async (t) => {
  const r = await cli('inspect', '--json', PORBI)
  const rows = JSON.parse(r.out)
  t.equal(rows.length, 522)
  const hgt = rows.find((x: { name: string, level_pa?: number }) => x.name === 'HGT' && x.level_pa === 50000)
  t.match(hgt, {
    level_type: 100,
    step_hours: 0,
    reference_time: '2020-07-28T12:00:00Z',
    packing: 0,
    grid: { ni: 49, nj: 33, scanning_mode: 64 }
  })
})

t.test('value --json gives each field at the nearest grid point, null where missing', async (t) => {
  const r = await cli('value', PORBI, '--lat', '52.52', '--lon', '21.01', '--json')
  t.equal(r.code, 0)
  const rows = JSON.parse(r.out)
  t.equal(rows.length, 522)
  const tmp = rows.find((x: { name: string, level_pa?: number }) => x.name === 'TMP' && x.level_pa === 85000)
  t.same(
    Object.keys(tmp),
    ['name', 'level_type', 'level_pa', 'step_hours', 'reference_time', 'latitude', 'longitude', 'value']
  )
  t.match(tmp, { latitude: 52.5, longitude: 21, step_hours: 0, reference_time: '2020-07-28T12:00:00Z' })
  t.ok(tmp.value > 250 && tmp.value < 300, `TMP 850 hPa ${tmp.value} K`)
  const surface = rows.find((x: { name: string, level_type: number }) => x.name === 'HGT' && x.level_type === 1)
  t.notOk('level_pa' in surface, 'level_pa only on isobaric levels')
})

t.test('value text output names the grid point; outside a regional grid says so', async (t) => {
  const r = await cli('value', PORBI, '--lat', '52.52', '--lon', '21.01')
  t.match(r.out.split('\n')[0], /CLWMR\s+hybrid 1\s+0h\s+0\s+at 52\.5, 21$/)
  const away = await cli('value', PORBI, '--lat', '0', '--lon', '0', '--json')
  t.same(JSON.parse(away.out)[0], {
    name: 'CLWMR',
    level_type: 105,
    level_value: 1,
    step_hours: 0,
    reference_time: '2020-07-28T12:00:00Z',
    latitude: null,
    longitude: null,
    value: null
  })
})

t.test('bad arguments print usage and exit 2', async (t) => {
  for (const args of [[], ['nope'], ['inspect'], ['value', PORBI], ['value', PORBI, '--lat', 'x', '--lon', '1'],
    ['value', PORBI, '--lat', '91', '--lon', '1'], ['inspect', PORBI, '--bogus'], ['inspect', PORBI, 'extra'],
    ['inspect', PORBI, '--lat', '1']]) {
    const r = await cli(...args)
    t.equal(r.code, 2, args.join(' '))
    t.match(r.err, /usage: aloft grib/)
  }
})

t.test('a GribError prints its message without a stack and exits 1', async (t) => {
  const r = await cli('inspect', path('GAO8A+earth/gfs.t00z.pgrb2.1p00.f000'))
  t.equal(r.code, 1)
  t.match(r.err, /no GRIB message found .*\[not_grib\]/)
  t.notMatch(r.err, /\n\s+at /)
})

t.test('a file that is not there is the caller\'s to fix: exit 2, naming it', async (t) => {
  const missing = await cli('inspect', path('no-such-file'))
  t.equal(missing.code, 2)
  t.match(missing.err, /cannot read .*no-such-file: ENOENT/)
})
