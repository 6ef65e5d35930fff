// bench/crossing: what crossing the thread boundary costs, one worker thread, tasks in sequence
// (latency) and 64 at a time (throughput):
//   1. interpolating one cached column: on the main thread (no hop) vs in the worker from the
//      shared tile (SharedArrayBuffer, nothing copied: aloft's `worker` mode) vs from the column
//      copied out on the main thread and sent (structured clone) or transferred;
//   2. answering a decoded block (64 × 64 points × 41 levels × 7 planes, 4.7 MB) from the worker
//      on a SharedArrayBuffer (aloft's decode) vs transferred vs copied.
//   npx tsc -p tsconfig.json && node dist/bench/crossing.js [--seconds 2]
// Writes bench/results/crossing.json.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import { scanMessages } from '../src/grib/index.js'
import { decode, type DecodedTile } from '../src/field/tasks.js'
import { interpolate, type InterpolateTask } from '../src/profile/task.js'
import { VAR, tileOffset } from '../src/field/index.js'
import { int, ms, numberArg, SAMPLE, table, writeResult } from './lib/index.js'
import type { PackedColumn } from './children/crossing-worker.js'

const seconds = numberArg('seconds', 2)
const BLOCK_VALUES = 64 * 64 * 41 * 7

const file = readFileSync(`${SAMPLE}/gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006`)
const bytes = new Uint8Array(new SharedArrayBuffer(file.length))
bytes.set(file)
const tile = await decode({ bytes, fields: scanMessages(bytes) }) as DecodedTile
if (!tile.ok) throw new Error('the sample unit did not decode')
const { layout, values } = tile
const request = { altitudes_m: [300, 1000, 3000, 10000], altitude_reference: 'agl' as const }
const point = { i: layout.box.i0 + Math.floor(layout.box.ni / 2), j: layout.box.j0 + Math.floor(layout.box.nj / 2) }
const task: InterpolateTask = { layout, values, ...point, request }

/** The column at the point, packed as crossing-worker's `column` task reads it (a copy). */
function packColumn (): PackedColumn {
  const n = layout.levelsPa.length
  const at = tileOffset(layout, point.i, point.j)
  const packed = new Float32Array(1 + n * 6)
  packed[0] = values[layout.surfaceOffset + at]
  for (let k = 0; k < n; k++) {
    for (const [v, name] of (['HGT', 'TMP', 'UGRD', 'VGRD', 'SPFH', 'RH'] as const).entries()) {
      packed[1 + k * 6 + v] = layout.present[VAR[name]]
        ? values[VAR[name] * layout.strides.variable + k * layout.strides.level + at]
        : NaN
    }
  }
  return { levelsPa: layout.levelsPa, values: packed, request }
}

const pool = new Piscina({
  filename: fileURLToPath(new URL('./children/crossing-worker.js', import.meta.url)),
  minThreads: 1,
  maxThreads: 1
})

interface Row { what: string, sequentialUs: number, perSecond: number }

/** Mean µs per task one at a time, and tasks per second with 64 in flight, each for `seconds`. */
async function measure (what: string, run: () => unknown): Promise<Row> {
  for (let k = 0; k < 200; k++) await run() // warm-up
  let n = 0
  let t0 = performance.now()
  while (performance.now() - t0 < seconds * 1000) { await run(); n++ }
  const sequentialUs = (performance.now() - t0) * 1000 / n
  n = 0
  t0 = performance.now()
  const lane = async (): Promise<void> => { while (performance.now() - t0 < seconds * 1000) { await run(); n++ } }
  await Promise.all(Array.from({ length: 64 }, lane))
  return { what, sequentialUs, perSecond: n / ((performance.now() - t0) / 1000) }
}

const same = JSON.stringify(interpolate(task)) === JSON.stringify(await pool.run(packColumn(), { name: 'column' }))
if (!same) throw new Error('the column task does not give the shared-tile answer')

const interpolation: Row[] = [
  await measure('main thread, from the shared tile (no hop)', () => interpolate(task)),
  await measure('worker, from the shared tile (SharedArrayBuffer)', () => pool.run(task, { name: 'interpolate' })),
  await measure('worker, column copied out then cloned', () => pool.run(packColumn(), { name: 'column' })),
  await measure('worker, column copied out then transferred', () => {
    const c = packColumn()
    return pool.run(c, { name: 'column', transferList: [c.values.buffer as ArrayBuffer] })
  }),
  await measure('worker, empty task (the hop alone)', () => pool.run(null, { name: 'noop' }))
]
const blocks: Row[] = []
for (const how of ['shared', 'transfer', 'copy'] as const) {
  blocks.push(await measure(how, () => pool.run({ length: BLOCK_VALUES, how }, { name: 'block' })))
}
await pool.close()

console.log(`crossing: one worker thread; ${seconds} s per row one task at a time, then ${seconds} s with 64 in flight`)
console.log(table(['interpolate one cached column (4 heights)', 'µs per task, sequential', 'tasks/s, 64 in flight'],
  interpolation.map((r) => [r.what, ms(r.sequentialUs, 1), int(r.perSecond)])))
const blockHeader = `answer a decoded block (${(BLOCK_VALUES * 4 / 1e6).toFixed(1)} MB) from the worker`
console.log(`\n${table([blockHeader, 'µs per task, sequential', 'tasks/s, 64 in flight'],
  blocks.map((r) => [r.what, ms(r.sequentialUs, 1), int(r.perSecond)]))}`)
const path = writeResult('crossing', { seconds, interpolation, blocks, block_values: BLOCK_VALUES })
console.log(`\n→ ${path}`)
