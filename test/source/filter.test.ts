// The grib-filter path: the stand-in cuts the requested box out of a held file and repacks it
// with simple packing; the filter adapter fetches one (run, step, tile) shared by nearby points.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { decodeField, gridPointIndex, indexOf, scanMessages } from '../../src/grib/index.js'
import { boxIndices, cutField, packSimple } from '../../src/standin/grib-writer.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { at, harness, metricValue, rejection } from './helpers.js'

const F006 = 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'

t.test('writer: cut and repack reads back to the same float32 values within the packing precision', async (t) => {
  const { root } = await startSampleUpstream(t, { only: [F006] })
  const bytes = new Uint8Array(await readFile(join(root, F006)))
  const fields = scanMessages(bytes)
  const box = { bottomlat: 50, toplat: 51.5, leftlon: 20, rightlon: 22.25 }
  let checked = 0
  const selected = fields.filter((x) =>
    ['HGT', 'TMP', 'RH', 'UGRD', 'VGRD'].includes(x.name) || x.bitmapIndicator === 0 || x.bitsPerValue === 0)
  for (const f of selected) {
    const cut = cutField(bytes, f, box)!
    const [g] = scanMessages(cut)
    t.equal(g.packing, 0)
    t.equal(g.grid.scanningMode, 64)
    t.same([g.grid.ni, g.grid.nj, g.grid.south, g.grid.north, g.grid.west, g.grid.east], [10, 7, 50, 51.5, 20, 22.25])
    t.same([g.name, g.level, g.referenceTime, g.stepHours], [f.name, f.level, f.referenceTime, f.stepHours])
    const original = decodeField(bytes, f)
    const back = decodeField(cut, g)
    const p = bytes[f.sections.drs + 17] // decimal scale (small, positive in these files)
    const d = (bytes[f.sections.drs + 17] & 0x80 ? -1 : 1) * (((p & 0x7f) << 8) | bytes[f.sections.drs + 18])
    const e = (bytes[f.sections.drs + 15] & 0x80 ? -1 : 1) *
      (((bytes[f.sections.drs + 15] & 0x7f) << 8) | bytes[f.sections.drs + 16])
    const tolerance = 2 ** e * 10 ** -d / 2 * 1.0001 +
      1e-6 * Math.max(...Array.from(original).filter(Number.isFinite).map(Math.abs), 0)
    let worst = 0
    for (let jj = 0; jj < 7; jj++) {
      for (let ii = 0; ii < 10; ii++) {
        const a = original[indexOf(f.grid, 28 + ii, 8 + jj)]
        const b = back[jj * 10 + ii]
        if (Number.isNaN(a)) { t.ok(Number.isNaN(b), 'missing stays missing'); continue }
        worst = Math.max(worst, Math.abs(a - b))
      }
    }
    if (worst > tolerance) t.fail(`${f.name} ${f.level.name} ${f.level.value}: off by ${worst} > ${tolerance}`)
    checked++
  }
  t.ok(checked > 150, `${checked} fields checked`)
  t.equal(
    cutField(bytes, fields[0], { bottomlat: -10, toplat: -5, leftlon: 0, rightlon: 1 }),
    null,
    'a box off the grid holds nothing'
  )
})

t.test('writer: bit packing edge cases', async (t) => {
  const constant = packSimple(new Float32Array([5, 5, 5]), 0, 0)
  t.same([constant.bits, constant.reference, constant.decimalScale], [0, 5, 0], 'constant: R unscaled, D = 0')
  const near = packSimple(new Float32Array([0.1, 0.1]), 1, 0)
  t.same([near.bits, near.reference, near.decimalScale], [0, Math.fround(0.1), 0])
  const empty = packSimple(new Float32Array([NaN, NaN]), 0, 0)
  t.equal(empty.coded, 0)
  const p = packSimple(new Float32Array([0.1, 0.7, NaN, 1.3]), 1, 0)
  t.equal(p.coded, 3)
  t.equal(p.bits, 4) // 1..13 - 1 = 12 → 4 bits
  const fake = {
    grid: { south: 0, dj: 1, nj: 3, west: 350, di: 5, ni: 4 }
  } as unknown as Parameters<typeof boxIndices>[0]
  t.same(
    boxIndices(fake, { bottomlat: 1, toplat: 2, leftlon: -5, rightlon: 2 }),
    { cols: [1, 2], rows: [1, 2] },
    'wraps across 0° E'
  )
})

t.test('filter source: one fetch per (run, step, tile), nearby points share it', async (t) => {
  const { server } = await startSampleUpstream(t)
  const h = await harness(t, { setting: { kind: 'filter', url: server.filterUrl }, tileDegrees: 1 })
  const ask = async (latitude: number, longitude: number) =>
    await h.source.resolve({
      latitude, longitude, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: h.account
    })
  const a = await ask(52.2, 21.1)
  const b = await ask(52.6, 21.6)
  const c = await ask(53.1, 21.1)
  t.equal(a.unitKey, b.unitKey, 'same 1° tile')
  t.not(a.unitKey, c.unitKey, 'next tile north')
  t.equal(a.unitKey, 'gfs/2020080412/f006/tile4/142_21')
  t.same(a.point, { latitude: 52.25, longitude: 21, i: 84, j: 569 }, 'global 0.25° grid indices')
  const u = await h.source.fetch(a, { accountId: h.account })
  const again = await h.source.fetch(b, { accountId: h.account })
  t.equal(again.fromCache, true)
  t.equal(server.count('/cgi-bin/filter_gfs_0p25.pl'), 1)
  t.equal(await metricValue(h.registry, 'aloft_upstream_attempts_total', { origin: 'filter' }), 1)
  const tmp = u.fields.find((f) => f.name === 'TMP' && f.level.value === 50000)!
  t.same([tmp.grid.ni, tmp.grid.nj, tmp.grid.south, tmp.grid.west], [4, 4, 52, 21])
  const gp = gridPointIndex(tmp.grid, a.point.latitude, a.point.longitude)!
  t.ok(gp !== null, 'the resolved point lies in the tile')
  t.ok(u.fields.some((f) => f.name === 'HGT' && f.level.type === 1))
  t.ok(u.fields.some((f) => f.name === 'RH'))
  t.ok(u.fields.every((f) => f.packing === 0))
  t.ok(u.bytes.length < 60_000, `small: ${u.bytes.length} bytes`)

  const d = await h.source.describe()
  t.equal(d.levelsPa?.length, 31, 'levels known once a unit has arrived')
  t.same(d.coverage, { latitude: { min: -90, max: 90 }, longitude: { min: -180, max: 180 } })
  t.equal(d.firstValidTime, '2020-07-21T12:00:00Z')
  t.equal(d.lastValidTime, '2020-08-29T06:00:00Z')

  // NOMADS says "not present": resolved again elsewhere or 404
  const undo = server.fail({ match: /file=gfs\.t12z\.pgrb2\.0p25\.f012/, mode: 'not_present' })
  t.teardown(undo)
  const r = await h.source.resolve({
    latitude: 52, longitude: 21, time: at('2020-08-05T01:00:00Z'), quality: 'best_available', accountId: h.account
  })
  t.match(await rejection(h.source.fetch(r, { accountId: h.account })), { code: 'outside_source_coverage' })
  // a tile off the sample's area: the stand-in has nothing to cut
  const off = await h.source.resolve({
    latitude: 10, longitude: 10, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: h.account
  })
  t.match(await rejection(h.source.fetch(off, { accountId: h.account })), { code: 'unusable_source_column' })
})

t.test('filter source: listing failure is source_busy', async (t) => {
  const { server } = await startSampleUpstream(t, { only: [F006] })
  const h = await harness(t, { setting: { kind: 'filter', url: server.filterUrl }, fetch: { retries: 0 } })
  server.fail({ match: '/pub/data/nccf/com/gfs/prod/', mode: 500 })
  t.match(
    await rejection(h.source.resolve({
      latitude: 52, longitude: 21, time: at('2020-08-04T18:00:00Z'), quality: 'best_available', accountId: h.account
    })),
    { code: 'source_busy' }
  )
  t.equal((await h.source.describe()).status, 'unavailable')
})
