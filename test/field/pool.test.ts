// The worker pool decodes units into shared tiles and interpolates from them; the main thread
// reads the same tile without a copy.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { createPool } from '../../src/field/index.js'
import { decode } from '../../src/field/tasks.js'
import { interpolate, interpolateInWorker } from '../../src/profile/task.js'
import { gridPointIndex } from '../../src/grib/index.js'
import { repoUrl } from '../helpers/paths.js'

const fixtures = repoUrl('test/fixtures/grib/')
const pool = createPool({ threads: 2 })
t.teardown(() => pool.close())

async function sharedBytes (path: string): Promise<Uint8Array> {
  const file = await readFile(new URL(path, fixtures))
  const bytes = new Uint8Array(new SharedArrayBuffer(file.length))
  bytes.set(file)
  return bytes
}

const spfh = await sharedBytes('derived/gfs.t12z.pgrb2.0p25.f006')
const request = { altitudes_m: [300, 1000, 3000, 10000, 30000], altitude_reference: 'agl' as const }

t.test('a worker decodes a unit into a tile on a SharedArrayBuffer', async (t) => {
  const result = await pool.decode({ bytes: spfh })
  if (!result.ok) throw new Error(result.detail)
  const { layout, values, fieldCount } = result
  t.ok(values.buffer instanceof SharedArrayBuffer, 'shared, not copied')
  t.equal(values.length, layout.length)
  t.ok(fieldCount > 0)
  t.ok(layout.levelsPa.length >= 26, `${layout.levelsPa.length} isobaric levels`)
  t.same(layout.present, [true, true, true, true, true, false], 'HGT TMP UGRD VGRD SPFH, no RH')
})

t.test('interpolating in a worker and on the main thread from the same tile agree exactly', async (t) => {
  const result = await pool.decode({ bytes: spfh })
  if (!result.ok) throw new Error(result.detail)
  const { layout, values } = result
  const point = gridPointIndex(layout.grid, 52.23, 21.01)!
  const task = { layout, values, i: point.i, j: point.j, request }
  const inWorker = await interpolateInWorker(pool, task)
  const onMain = interpolate(task)
  t.same(inWorker, onMain)
  t.equal(onMain.ok, true)
})

t.test('a unit that is not GRIB2 is refused as unusable', async (t) => {
  const html = new TextEncoder().encode('<html><body>data file is not present</body></html>')
  t.match(await decode({ bytes: html }), { ok: false, detail: /not usable GRIB2: no GRIB message found/ })
  t.match(
    await pool.decode({ bytes: html }),
    { ok: false, detail: /not usable GRIB2: no GRIB message found/ },
    'the same answer across the thread boundary'
  )
})

t.test('fields scanned by the caller are used as given', async (t) => {
  const { scanMessages } = await import('../../src/grib/index.js')
  const fields = scanMessages(spfh).filter((f) => f.name !== 'VGRD')
  t.match(await pool.decode({ bytes: spfh, fields }), { ok: false, detail: /no VGRD/ }, 'the worker did not scan again')
})

t.test('a unit lacking a required variable is refused as unusable', async (t) => {
  const { scanMessages } = await import('../../src/grib/index.js')
  const fields = scanMessages(spfh)
  const keep = fields.filter((f) => f.name !== 'UGRD')
  const parts = keep
    .filter((f, n) => keep.findIndex((g) => g.offset === f.offset) === n)
    .map((f) => spfh.subarray(f.offset, f.offset + f.length))
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { bytes.set(p, at); at += p.length }
  t.match(await decode({ bytes }), { ok: false, detail: /no UGRD/ })
})

t.test('a truncated unit is refused as unusable', async (t) => {
  t.match(await decode({ bytes: spfh.subarray(0, 5000) }), { ok: false, detail: String })
})

t.test('a pool closed while its threads load their module waits for them first', async (t) => {
  // Node 20 aborts the process when a thread is terminated while it loads its ES module (a service
  // stopped right after start-up did so about one time in four). A race: these three closes at
  // different points of the load caught it about one run in fifteen without the wait
  for (const delayMs of [0, 100, 200]) {
    const started = performance.now()
    const young = createPool({ threads: 2 })
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    await young.close()
    const tookMs = Math.round(performance.now() - started)
    // what fails is the process aborting, or close never resolving (the file's timeout): not a time
    t.pass(`closed after ${delayMs} ms in ${tookMs} ms, the process alive`)
  }
})
