// Seeded fuzz over real files: truncations, bit flips, byte overwrites in the headers and length
// lies. Only GribError may escape scanMessages/decodeField, and each call must return promptly.
import t from 'tap'
import { decodeField, GribError, initGrib, scanMessages } from '../../src/grib/index.js'
import { fixture, prng } from './helpers.js'

const SEED = 20240601
const FILES: Array<[string, number]> = [
  // [file, mutations]; the large fields (global 0.25°, JPEG/PNG) are slow to decode, so fewer of them
  ['nilsmagnus+grib/griblib/integrationtestdata/constant.grb', 3000],
  ['noritada+grib-rs/testdata/gdas.t12z.pgrb2.0p25.f000.46', 200],
  ['nilsmagnus+grib/griblib/integrationtestdata/template5_0.grib2', 800],
  ['nilsmagnus+grib/griblib/integrationtestdata/template5_2.grib2', 800],
  ['nilsmagnus+grib/griblib/integrationtestdata/template5_3.grib2', 800],
  ['Porbi96+GFS-forecast-web-app/gfs.t06z.pgrb2.0p25.f000', 100], // first messages only, see below
  ['jswhit+pygrib/sampledata/gfs.grb', 400], // a multi-field stretch, see below
  ['mpiannucci+gribberish/test-data/gfs.t12z.pgrb2.0p25.f023-PV-TMP-missing.grib2', 100],
  ['NOAA-MDL+grib2io/tests/input_data/gfs.png.grib2', 40],
  ['NOAA-MDL+grib2io/tests/input_data/gfs.jpeg.grib2', 40]
]
const PER_CALL_MS = 2000

/** A few whole messages of a big file, so each mutation is cheap to re-read. */
function excerpt (b: Uint8Array, name: string): Uint8Array {
  if (!name.includes('Porbi') && !name.includes('pygrib')) return b
  const fields = scanMessages(b)
  const first = name.includes('pygrib') ? fields[3] : fields[0] // pygrib fields 3/4 share one message
  const after = fields.find((f) => f.message >= first.message + 8) as NonNullable<typeof first>
  return b.slice(first.offset, after.offset)
}

function mutate (src: Uint8Array, rnd: () => number, headerEnds: number[]): Uint8Array {
  const kind = Math.floor(rnd() * 4)
  if (kind === 0) return src.slice(0, Math.floor(rnd() * src.length)) // truncation
  const b = src.slice()
  const dv = new DataView(b.buffer)
  const flips = 1 + Math.floor(rnd() * 8)
  for (let k = 0; k < flips; k++) {
    // most damage goes where lengths, templates and descriptors live: the bytes before each data section
    const at = rnd() < 0.7
      ? Math.floor(rnd() * headerEnds[Math.floor(rnd() * headerEnds.length)])
      : Math.floor(rnd() * b.length)
    if (at + 4 > b.length) continue
    if (kind === 1) b[at] ^= 1 << Math.floor(rnd() * 8) // bit flip
    else if (kind === 2) b[at] = Math.floor(rnd() * 256) // byte overwrite
    else { // length lie
      const lengths = [0, 1, 0x7fffffff, 0xffffffff, Math.floor(rnd() * 2 ** 32)]
      dv.setUint32(at, lengths[Math.floor(rnd() * 5)])
    }
  }
  return b
}

t.before(initGrib)

t.test(`seeded fuzz (seed ${SEED}): only GribError, every call bounded`, async (t) => {
  const rnd = prng(SEED)
  let runs = 0; let errors = 0; let decoded = 0; let slowest = 0
  const reasons = new Map<string, number>()
  const crashes: string[] = []
  const started = performance.now()
  for (const [name, count] of FILES) {
    const src = excerpt(fixture(name), name)
    const headerEnds = scanMessages(src).map((f) => f.sections.data + 64)
    for (let k = 0; k < count; k++) {
      const b = mutate(src, rnd, headerEnds)
      runs++
      const t0 = performance.now()
      try {
        for (const f of scanMessages(b)) {
          decodeField(b, f)
          decoded++
        }
      } catch (err) {
        if (err instanceof GribError) {
          errors++
          reasons.set(err.reason, (reasons.get(err.reason) ?? 0) + 1)
        } else {
          crashes.push(`${name} mutation ${k}: ${(err as Error).stack ?? String(err)}`)
        }
      }
      slowest = Math.max(slowest, performance.now() - t0) // scanning plus decoding every field
    }
  }
  const elapsed = performance.now() - started
  t.same(crashes.slice(0, 5), [], 'no error other than GribError escaped')
  t.ok(runs >= 6000, `${runs} mutations`)
  t.ok(errors > runs / 4, `${errors} refused with a GribError`)
  t.ok(slowest < PER_CALL_MS, `slowest call ${slowest.toFixed(0)} ms`)
  // a bound against a hang, not a timing: the machines running the suite are shared
  t.ok(elapsed < 90000, `whole run ${(elapsed / 1000).toFixed(1)} s`)
  t.comment(`reasons: ${JSON.stringify(Object.fromEntries(reasons))}; fields decoded from mutated bytes: ${decoded}`)
})
