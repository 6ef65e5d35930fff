// bench/decode: aloft's decoder against ecCodes on the same files, values per second and ratio.
//   npx tsc -p tsconfig.json && node dist/bench/decode.js [seconds-per-file, default 2]
// Ours: scan once, then decode every field into one reused Float32Array, repeated for the time
// budget (the worker's path). ecCodes: bench/decode-eccodes.py, in-process, see its header.
// Writes bench/results/decode.json.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { decodeField, initGrib, PACKING_NAMES, scanMessages } from '../src/grib/index.js'

const ROOT = new URL('../../', import.meta.url) // dist/bench/ → repository root
const FIXTURES = new URL('test/fixtures/grib/', ROOT)
const FILES = [
  'NOAA-MDL+grib2io/tests/input_data/gfs.complex.grib2', // one 0.25° global field, 5.3
  'nilsmagnus+grib/griblib/integrationtestdata/gfs.t00z.pgrb2.2p50.f000', // a whole 2.5° file, 5.3
  'Porbi96+GFS-forecast-web-app/data/gfs/20200804/12z/gfs.pgrb2.0p25.f000' // grib-filter sub-region, 5.0
]
const PYTHON = '/usr/bin/python3'
const seconds = Number(process.argv[2] ?? 2)

interface Row {
  file: string
  packing: string
  fields: number
  values: number
  ours: number
  eccodes: number | null
  ratio: number | null
  oursMsPerField: number
  eccodesMsPerField: number | null
}

function oursRate (bytes: Uint8Array): { valuesPerSecond: number, msPerField: number, fields: number, values: number } {
  const fields = scanMessages(bytes)
  const out = new Float32Array(Math.max(...fields.map((f) => f.grid.numberOfPoints)))
  const values = fields.reduce((n, f) => n + f.grid.numberOfPoints, 0)
  for (const f of fields) decodeField(bytes, f, out) // warm-up: JIT and the complex scratch buffer
  let reps = 0
  const start = performance.now()
  let elapsed: number
  do {
    // the index is part of the per-file cost on small files, so it is timed too
    for (const f of scanMessages(bytes)) decodeField(bytes, f, out)
    reps++
    elapsed = performance.now() - start
  } while (elapsed < seconds * 1000 || reps < 3)
  return {
    valuesPerSecond: values * reps / (elapsed / 1000),
    msPerField: elapsed / (reps * fields.length),
    fields: fields.length,
    values
  }
}

function ecCodesRates (paths: string[]): Map<string, { valuesPerSecond: number, msPerField: number }> | string {
  if (!existsSync(PYTHON)) return `${PYTHON} not found`
  const script = fileURLToPath(new URL('bench/decode-eccodes.py', ROOT))
  const r = spawnSync(PYTHON, [script, String(seconds), ...paths], { encoding: 'utf8' })
  if (r.status !== 0) {
    const lastLine = (r.stderr || r.error?.message || '').trim().split('\n').at(-1) ?? ''
    return `ecCodes not usable: ${lastLine}`
  }
  const rates = new Map<string, { valuesPerSecond: number, msPerField: number }>()
  for (const line of r.stdout.trim().split('\n')) {
    const x = JSON.parse(line) as { file: string, messages: number, reps: number, values: number, seconds: number }
    rates.set(x.file, { valuesPerSecond: x.values / x.seconds, msPerField: 1000 * x.seconds / (x.reps * x.messages) })
  }
  return rates
}

await initGrib()
const paths = FILES.map((f) => fileURLToPath(new URL(f, FIXTURES)))
const theirs = ecCodesRates(paths)
const rows: Row[] = FILES.map((file, k) => {
  const bytes = new Uint8Array(readFileSync(paths[k]))
  const fields = scanMessages(bytes)
  const ours = oursRate(bytes)
  const ec = typeof theirs === 'string' ? undefined : theirs.get(paths[k])
  return {
    file,
    packing: [...new Set(fields.map((f) => `5.${f.packing} ${PACKING_NAMES[f.packing] ?? ''}`.trim()))].join(', '),
    fields: ours.fields,
    values: ours.values,
    ours: ours.valuesPerSecond,
    eccodes: ec?.valuesPerSecond ?? null,
    ratio: ec === undefined ? null : ours.valuesPerSecond / ec.valuesPerSecond,
    oursMsPerField: ours.msPerField,
    eccodesMsPerField: ec?.msPerField ?? null
  }
})

const fmt = (x: number | null, digits = 0): string =>
  x === null ? 'n/a' : x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : x.toFixed(digits)
const header = [
  'file', 'packing', 'fields', 'values', 'ours values/s', 'ecCodes values/s', 'ratio', 'ours ms/field',
  'ecCodes ms/field'
]
const table = rows.map((r) => [
  r.file.split('/').at(-1) ?? r.file,
  r.packing,
  String(r.fields),
  String(r.values),
  fmt(r.ours),
  fmt(r.eccodes),
  r.ratio === null ? 'n/a' : `${r.ratio.toFixed(2)}x`,
  r.oursMsPerField.toFixed(3),
  r.eccodesMsPerField === null ? 'n/a' : r.eccodesMsPerField.toFixed(3)
])
const widths = header.map((h, c) => Math.max(h.length, ...table.map((row) => row[c].length)))
for (const row of [header, ...table]) console.log(row.map((x, c) => x.padEnd(widths[c])).join('  '))
if (typeof theirs === 'string') console.log(`\necCodes column skipped: ${theirs}`)

mkdirSync(fileURLToPath(new URL('bench/results/', ROOT)), { recursive: true })
writeFileSync(new URL('bench/results/decode.json', ROOT), JSON.stringify({
  node: process.version,
  seconds_per_file: seconds,
  eccodes: typeof theirs === 'string' ? theirs : 'python3-eccodes in-process',
  rows
}, null, 2) + '\n')
