// Every GRIB fixture against what ecCodes 2.28 decodes from it (test/fixtures/grib/expectations.json,
// written by scripts/grib-expectations.py): field count, metadata, and every value via sha256.
import t from 'tap'
import { decodeField, gridPointIndex, initGrib, normalizeLongitude, scanMessages } from '../../src/grib/index.js'
import type { GribField } from '../../src/grib/index.js'
import { expectations, fixture, sha256f32 } from './helpers.js'
import type { ExpectedField, ExpectedFile } from './helpers.js'

// ecCodes short names whose NCEP name is fixed, to check our parameter table independently
const NCEP: Record<string, string> = {
  gh: 'HGT', orog: 'HGT', t: 'TMP', '2t': 'TMP', u: 'UGRD', '10u': 'UGRD', '100u': 'UGRD', v: 'VGRD', '10v': 'VGRD',
  '100v': 'VGRD', q: 'SPFH', '2sh': 'SPFH', r: 'RH', '2r': 'RH', prmsl: 'PRMSL', sp: 'PRES', pres: 'PRES', w: 'VVEL',
  absv: 'ABSV', o3mr: 'O3MR', clwmr: 'CLWMR', tcc: 'TCDC', cape: 'CAPE', cin: 'CIN', pwat: 'PWAT', lsm: 'LAND'
}

// Where aloft deliberately differs from ecCodes: a 2011 NCEP 5.3 field with no groups and an empty
// section 7. ecCodes reads its spatial-differencing descriptors past the section, from the '7777'
// end marker (0x37 = 55), and returns 55, 110, 165 ...; aloft returns the constant reference value.
const DIVERGES = new Set(['jswhit+pygrib/sampledata/gfs.grb#230'])

/** Differences between our field and ecCodes', as readable strings (empty when they agree). */
function metadataDiffs (f: GribField, e: ExpectedField, file: ExpectedFile): string[] {
  const diffs: string[] = []
  const eq = (what: string, ours: unknown, theirs: unknown): void => {
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
      diffs.push(`${what}: ours ${JSON.stringify(ours)}, ecCodes ${JSON.stringify(theirs)}`)
    }
  }
  eq('offset', f.offset, e.offset)
  eq('parameter', [f.discipline, f.category, f.number], [e.discipline, e.parameterCategory, e.parameterNumber])
  if (NCEP[e.shortName] !== undefined) eq(`name of ${e.shortName}`, f.name, NCEP[e.shortName])
  if (!/^[A-Z0-9][A-Z0-9-]*$/.test(f.name)) diffs.push(`parameter ${f.name} is not in the table`)
  eq('level type', f.level.type, e.typeOfFirstFixedSurface)
  if (e.typeOfLevel === 'isobaricInhPa') eq('isobaric level (Pa)', f.level.value, e.level * 100)
  else if (e.typeOfLevel === 'isobaricInPa') eq('isobaric level (Pa)', f.level.value, e.level)
  else if (e.scaledValueOfFirstFixedSurface !== undefined && e.scaleFactorOfFirstFixedSurface !== undefined) {
    // GRIB2 signs integers by their top bit; ecCodes 2.28 reads this one unsigned, so the
    // PV = -2e-6 surface (wgrib2 and the .idx files say -2e-06) shows there as 2.147485648
    const raw = e.scaledValueOfFirstFixedSurface
    const signed = raw >= 2 ** 31 ? -(raw - 2 ** 31) : raw
    eq('level value', f.level.value, signed / 10 ** e.scaleFactorOfFirstFixedSurface)
  }
  const d = String(e.dataDate); const h = String(e.dataTime).padStart(4, '0')
  eq('reference time', f.referenceTime,
    `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${h.slice(0, 2)}:${h.slice(2)}:00Z`)
  eq('step', [f.stepHours, f.stepEndHours], [e.startStep, e.endStep])
  eq('templates', [f.productTemplate, f.packing],
    [e.productDefinitionTemplateNumber, e.dataRepresentationTemplateNumber])
  eq('bits per value', f.bitsPerValue, e.bitsPerValue)
  // ecCodes reports the bitmap in force: 254 ("the previous one") shows there as 0
  eq('bitmap indicator', f.bitmapIndicator === 254 ? 0 : f.bitmapIndicator, e.bitMapIndicator)
  eq('coded values', f.numberOfValues, e.numberOfValues)
  const g = file.grid
  eq('grid shape',
    [f.grid.template, f.grid.ni, f.grid.nj, f.grid.numberOfPoints, f.grid.scanningMode, f.grid.shapeOfEarth],
    [g.gridDefinitionTemplateNumber, g.Ni, g.Nj, g.numberOfDataPoints, g.scanningMode, g.shapeOfTheEarth])
  eq('grid corners and increments',
    [f.grid.la1, f.grid.lo1, f.grid.la2, f.grid.lo2, f.grid.di, f.grid.dj].map((x) => Math.round(x * 1e6)),
    [g.latitudeOfFirstGridPoint, g.longitudeOfFirstGridPoint, g.latitudeOfLastGridPoint, g.longitudeOfLastGridPoint,
      g.iDirectionIncrement, g.jDirectionIncrement])
  return diffs
}

function valueDiffs (v: Float32Array, e: ExpectedField): string[] {
  const diffs: string[] = []
  let nan = 0; let min = Infinity; let max = -Infinity
  for (const x of v) {
    if (Number.isNaN(x)) nan++
    else { if (x < min) min = x; if (x > max) max = x }
  }
  const stats = [v.length, nan, nan === v.length ? null : min, nan === v.length ? null : max]
  const expected = [e.count, e.nan, e.min, e.max]
  if (JSON.stringify(stats) !== JSON.stringify(expected)) {
    diffs.push(`count/NaN/min/max ${JSON.stringify(stats)} vs ${JSON.stringify(expected)}`)
  }
  for (const [i, x] of e.samples) {
    if ((Number.isNaN(v[i]) ? null : v[i]) !== x) diffs.push(`value ${i}: ${v[i]} vs ${x}`)
  }
  if (sha256f32(v) !== e.sha256) diffs.push('sha256 of the float32 values differs')
  return diffs
}

t.before(initGrib)

for (const file of expectations.files) {
  t.test(file.file, async (t) => {
    const bytes = fixture(file.file)
    t.equal(bytes.length, file.size, 'fixture is the file ecCodes read')
    const fields = scanMessages(bytes)
    t.equal(fields.length, file.fields.length, 'field count equals ecCodes\' (multi-field messages counted per field)')
    // Collected per file, asserted once: 6 000 fields × 30 checks as separate tap assertions
    // would make this test slow for no gain in what it shows.
    const meta: string[] = []; const values: string[] = []; const nearest: string[] = []
    const out = new Float32Array(fields[0].grid.numberOfPoints)
    let compared = 0
    for (let k = 0; k < Math.min(fields.length, file.fields.length); k++) {
      const f = fields[k]; const e = file.fields[k]
      const where = `field ${k} (${f.name} ${f.level.name} ${f.level.value ?? ''})`
      for (const d of metadataDiffs(f, e, file)) meta.push(`${where} ${d}`)
      const v = decodeField(bytes, f, out)
      const diverges = DIVERGES.has(`${file.file}#${k}`)
      if (diverges) {
        t.ok(v.every((x) => x === 0), `${where}: constant reference value 0 (see DIVERGES)`)
        t.same(e.samples.slice(0, 2), [[0, 55], [1, 110]], `${where}: ecCodes read the 7777 marker as descriptors`)
      } else {
        for (const d of valueDiffs(v, e)) values.push(`${where} ${d}`)
        compared++
      }
      for (let p = 0; p < file.nearest.length; p++) {
        const near = file.nearest[p]
        const pt = gridPointIndex(f.grid, near.lat, near.lon)
        // ecCodes accumulates the 0.24° increments, so its coordinates carry ~1e-12 noise
        const ours = pt === null ? null : [pt.index, pt.latitude.toFixed(6), pt.longitude.toFixed(6)]
        const theirs = [near.index, near.latitude.toFixed(6), normalizeLongitude(near.longitude).toFixed(6)]
        if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
          nearest.push(`${where} at ${near.lat},${near.lon}: ${JSON.stringify(ours)} vs ${JSON.stringify(theirs)}`)
        } else if (!diverges && (Number.isNaN(v[pt!.index]) ? null : v[pt!.index]) !== e.nearest[p]) {
          nearest.push(`${where} value at ${near.lat},${near.lon}`)
        }
      }
    }
    t.same(meta, [], 'metadata equals ecCodes\' for every field')
    t.same(values, [], `count, NaN count, min, max, samples and sha256 equal ecCodes' for ${compared} fields`)
    t.same(nearest, [], 'gridPointIndex picks ecCodes\' nearest point, and the value there is ecCodes\'')
  })
}
