// bench/decode: aloft's decoder against ecCodes on the same files, values per second and ratio.
//   npm run build && node dist/bench/decode.js [seconds-per-file, default 2] [--rounds N, default 5] [--plain-malloc]
// Ours: scan once, then decode every field into one reused Float32Array, repeated for the time
// budget (the worker's path). ecCodes: bench/python/decode-eccodes.py, in-process, see its header.
// The machine is shared and its load swings within seconds, so each file's budget is split into
// rounds that alternate the two sides (ecCodes first in odd rounds, ours first in even ones): each
// side's figure is its best round, and the ratio's spread over the paired rounds is printed beside
// it. ecCodes runs with glibc's malloc told to keep freed memory (GLIBC_TUNABLES below): it
// allocates its buffers afresh for every field, and on this machine faulting those pages in again
// costs more than decoding (a 0.25° 5.3 field: ~50 ms against ~9 ms), while aloft reuses its own.
// So the ratio is against ecCodes at its fastest; `--plain-malloc` measures it as installed.
// Writes bench/results/decode.json.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import {
  decodeField, initGrib, jpeg2000Codec, PACKING_NAMES, scanMessages, type Jpeg2000Codec
} from '../src/grib/index.js'

const ROOT = new URL('../../', import.meta.url) // dist/bench/ → repository root
const FIXTURES = new URL('test/fixtures/grib/', ROOT)
const FILES = [
  'NOAA-MDL+grib2io/tests/input_data/gfs.complex.grib2', // one 0.25° global field, 5.3
  'nilsmagnus+grib/griblib/integrationtestdata/gfs.t00z.pgrb2.2p50.f000', // a whole 2.5° file, 5.3
  'Porbi96+GFS-forecast-web-app/data/gfs/20200804/12z/gfs.pgrb2.0p25.f000', // grib-filter sub-region, 5.0
  // the same 0.25° global HGT 500 hPa field as JPEG 2000 and as PNG (PROVENANCE.md)
  'NOAA-MDL+grib2io/tests/input_data/gfs.jpeg.grib2', // 5.40
  'noritada+grib-rs/testdata/CMC_glb_TMP_ISBL_1_latlon.24x.24_2021051800_P000.grib2', // 0.24° global, 5.40 (CMC)
  'NOAA-MDL+grib2io/tests/input_data/gfs.png.grib2' // 5.41
]
const PYTHON = '/usr/bin/python3'
const argv = process.argv.slice(2)
const plainAt = argv.indexOf('--plain-malloc')
const plainMalloc = plainAt >= 0
if (plainMalloc) argv.splice(plainAt, 1)
const KEEP_MEMORY = 'glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295'
const roundsAt = argv.indexOf('--rounds')
const rounds = roundsAt < 0 ? 5 : Number(argv.splice(roundsAt, 2)[1])
const seconds = Number(argv[0] ?? 2)
if (!(seconds > 0) || !Number.isInteger(rounds) || rounds < 1) {
  console.error('usage: node dist/bench/decode.js [seconds-per-file] [--rounds N] [--plain-malloc]')
  process.exit(2)
}
const roundSeconds = seconds / rounds

interface Rate { valuesPerSecond: number, msPerField: number }
interface Row {
  file: string
  /** For 5.40: which OpenJPEG build decoded (the native one only where it was built). */
  codec: string | null
  packing: string
  fields: number
  values: number
  ours: number
  eccodes: number | null
  ratio: number | null
  ratioMin: number | null
  ratioMax: number | null
  oursMsPerField: number
  eccodesMsPerField: number | null
  oursRounds: number[]
  eccodesRounds: number[]
}

/** One timed round of ours (the caller has warmed up JIT and scratch buffers). */
function oursRound (bytes: Uint8Array, out: Float32Array, fields: number, values: number): Rate {
  let reps = 0
  const start = performance.now()
  let elapsed: number
  do {
    // the index is part of the per-file cost on small files, so it is timed too
    for (const f of scanMessages(bytes)) decodeField(bytes, f, out)
    reps++
    elapsed = performance.now() - start
  } while (elapsed < roundSeconds * 1000 || reps < 3)
  return { valuesPerSecond: values * reps / (elapsed / 1000), msPerField: elapsed / (reps * fields) }
}

/** One timed round of ecCodes in its own process, or why it could not run. */
function ecCodesRound (path: string): Rate | string {
  if (!existsSync(PYTHON)) return `${PYTHON} not found`
  const script = fileURLToPath(new URL('bench/python/decode-eccodes.py', ROOT))
  const env = plainMalloc ? process.env : { ...process.env, GLIBC_TUNABLES: KEEP_MEMORY }
  const r = spawnSync(PYTHON, [script, String(roundSeconds), path], { encoding: 'utf8', env })
  if (r.status !== 0) {
    const lastLine = (r.stderr || r.error?.message || '').trim().split('\n').at(-1) ?? ''
    return `ecCodes not usable: ${lastLine}`
  }
  const x = JSON.parse(r.stdout) as { messages: number, reps: number, values: number, seconds: number }
  return { valuesPerSecond: x.values / x.seconds, msPerField: 1000 * x.seconds / (x.reps * x.messages) }
}

const best = (rates: Rate[]): Rate => rates.reduce((a, b) => b.valuesPerSecond > a.valuesPerSecond ? b : a)

await initGrib()
let skipped: string | null = null
let nativeMissing: string | null = null
const JPEG2000_CODECS: Jpeg2000Codec[] = ['native', 'wasm']
const cases: Array<{ file: string, codec: Jpeg2000Codec | null }> = []
for (const file of FILES) {
  const isJpeg = scanMessages(new Uint8Array(readFileSync(new URL(file, FIXTURES)))).some((f) => f.packing === 40)
  if (!isJpeg) cases.push({ file, codec: null })
  else for (const codec of JPEG2000_CODECS) cases.push({ file, codec })
}
const rows: Row[] = []
for (const { file, codec } of cases) {
  if (codec !== null) {
    try {
      await initGrib({ jpeg2000: codec })
    } catch (err) {
      nativeMissing = (err as Error).message
      continue
    }
  }
  rows.push(measure(file, codec === null ? null : `${codec} ${jpeg2000Codec()?.version ?? ''}`.trim()))
}

function measure (file: string, codec: string | null): Row {
  const path = fileURLToPath(new URL(file, FIXTURES))
  const bytes = new Uint8Array(readFileSync(path))
  const fields = scanMessages(bytes)
  const out = new Float32Array(Math.max(...fields.map((f) => f.grid.numberOfPoints)))
  const values = fields.reduce((n, f) => n + f.grid.numberOfPoints, 0)
  for (const f of fields) decodeField(bytes, f, out) // warm-up: JIT and the decoders' scratch buffers
  const ours: Rate[] = []
  const theirs: Rate[] = []
  for (let r = 0; r < rounds; r++) {
    const ec = (): void => {
      if (skipped !== null) return
      const x = ecCodesRound(path)
      if (typeof x === 'string') skipped = x
      else theirs.push(x)
    }
    if (r % 2 === 0) ec()
    ours.push(oursRound(bytes, out, fields.length, values))
    if (r % 2 === 1) ec()
  }
  const o = best(ours)
  const ec = theirs.length === rounds ? best(theirs) : undefined
  const paired = ec === undefined ? [] : ours.map((x, r) => x.valuesPerSecond / theirs[r].valuesPerSecond)
  return {
    file,
    codec,
    packing: [...new Set(fields.map((f) => `5.${f.packing} ${PACKING_NAMES[f.packing] ?? ''}`.trim()))].join(', '),
    fields: fields.length,
    values,
    ours: o.valuesPerSecond,
    eccodes: ec?.valuesPerSecond ?? null,
    ratio: ec === undefined ? null : o.valuesPerSecond / ec.valuesPerSecond,
    ratioMin: ec === undefined ? null : Math.min(...paired),
    ratioMax: ec === undefined ? null : Math.max(...paired),
    oursMsPerField: o.msPerField,
    eccodesMsPerField: ec?.msPerField ?? null,
    oursRounds: ours.map((x) => x.valuesPerSecond),
    eccodesRounds: theirs.map((x) => x.valuesPerSecond)
  }
}

const fmt = (x: number | null, digits = 0): string =>
  x === null ? 'n/a' : x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : x.toFixed(digits)
const times = (x: number | null): string => x === null ? 'n/a' : `${x.toFixed(2)}x`
const header = [
  'file', 'packing', 'codec', 'fields', 'values', 'ours values/s', 'ecCodes values/s', 'ratio', 'rounds',
  'ours ms/field', 'ecCodes ms/field'
]
const table = rows.map((r) => [
  r.file.split('/').at(-1) ?? r.file,
  r.packing,
  r.codec ?? '',
  String(r.fields),
  String(r.values),
  fmt(r.ours),
  fmt(r.eccodes),
  times(r.ratio),
  r.ratioMin === null ? 'n/a' : `${r.ratioMin.toFixed(2)}–${times(r.ratioMax)}`,
  r.oursMsPerField.toFixed(3),
  r.eccodesMsPerField === null ? 'n/a' : r.eccodesMsPerField.toFixed(3)
])
const widths = header.map((h, c) => Math.max(h.length, ...table.map((row) => row[c].length)))
for (const row of [header, ...table]) console.log(row.map((x, c) => x.padEnd(widths[c])).join('  ').trimEnd())
console.log(`\n${rounds} alternating rounds of ${roundSeconds.toFixed(2)} s per side and file; ` +
  'values/s: best round; ratio: best ÷ best; rounds: ratio range over the paired rounds; ecCodes with ' +
  (plainMalloc ? 'glibc malloc as installed' : 'glibc malloc keeping freed memory (--plain-malloc: as installed)'))
if (skipped !== null) console.log(`\necCodes column skipped: ${skipped}`)
if (nativeMissing !== null) console.log(`\nno native JPEG 2000 rows: ${nativeMissing}`)

mkdirSync(fileURLToPath(new URL('bench/results/', ROOT)), { recursive: true })
writeFileSync(new URL('bench/results/decode.json', ROOT), JSON.stringify({
  node: process.version,
  seconds_per_file: seconds,
  rounds,
  eccodes: skipped ?? 'python3-eccodes in-process',
  eccodes_env: plainMalloc ? {} : { GLIBC_TUNABLES: KEEP_MEMORY },
  load_average: loadavg(),
  rows
}, null, 2) + '\n')
