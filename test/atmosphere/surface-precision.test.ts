// docs/DESIGN.md §8's precision rule on the bundled GFS files: a near-ground field is a node only
// where its packing step is at most its variable's tolerance (the steps read by ecCodes' grib_ls, not
// by our decoder), and with those nodes density never rises with height near the ground.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { scanMessages } from '../../src/grib/index.js'
import { columnOf, decodeTile } from '../../src/field/index.js'
import {
  type Column, type ProfileResult, SURFACE_FIELDS, SURFACE_TOLERANCES, computeProfile, surfaceLayerNodes
} from '../../src/atmosphere/index.js'
import { repoPath } from '../helpers/paths.js'

const SAMPLE = repoPath('data/sample')

/** Every bundled GRIB2 file: one per valid time the demo serves. */
async function bundledFiles (): Promise<string[]> {
  const entries = await readdir(SAMPLE, { recursive: true })
  return entries.filter((e) => /gfs\.t\d\dz\.pgrb2\.0p25\.f\d{3}$/.test(e)).map((e) => join(SAMPLE, e)).sort()
}
const files = await bundledFiles()
const noEcCodes = ((): string | false => {
  try {
    execFileSync('grib_get', ['-V'], { stdio: 'ignore' })
    return false
  } catch {
    return 'no grib_get here (Debian libeccodes-tools, which .ci/run installs): the packing steps are read by ecCodes'
  }
})()
const ECCODES = { skip: noEcCodes }

const stepsRead = new Map<string, Map<string, number>>()

/** ecCodes' packing step (2^E / 10^D) of each near-ground field of a file, keyed `NAME@height` (read once). */
function ecCodesSteps (file: string): Map<string, number> {
  const kept = stepsRead.get(file)
  if (kept !== undefined) return kept
  const out = execFileSync('grib_get', ['-p', 'shortName,typeOfFirstFixedSurface:i,level,binaryScaleFactor,' +
    'decimalScaleFactor', file], { encoding: 'utf8' })
  const names: Record<string, string> = { '2t': 'TMP', t: 'TMP', '10u': 'UGRD', u: 'UGRD', '100u': 'UGRD',
    '10v': 'VGRD', v: 'VGRD', '100v': 'VGRD', '2sh': 'SPFH', q: 'SPFH', '2r': 'RH', sp: 'PRES', pres: 'PRES' }
  const steps = new Map<string, number>()
  for (const line of out.trim().split('\n')) {
    const [short, surface, level, e, d] = line.trim().split(/\s+/)
    if (surface !== '103' && !(surface === '1' && short === 'sp')) continue
    const name = names[short]
    if (name === undefined) continue
    const key = `${name}@${surface === '1' ? 0 : Number(level)}`
    if (!steps.has(key)) steps.set(key, 2 ** Number(e) / 10 ** Number(d))
  }
  stepsRead.set(file, steps)
  return steps
}

const GRIB_NAMES = {
  pressure: 'PRES', temperature: 'TMP', specific_humidity: 'SPFH', relative_humidity: 'RH', wind_u: 'UGRD',
  wind_v: 'VGRD'
} as const

t.test('the bundled data: nine valid times, TMP at 80 and 100 m in whole kelvins in most', ECCODES, async (t) => {
  t.equal(files.length, 9)
  const whole = files.filter((f) => ecCodesSteps(f).get('TMP@80') === 1)
  t.equal(whole.length, 8, 'all but 2020-07-22 06Z (0.1 K there)')
  t.ok(whole.some((f) => f.includes('gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006')), 'the Warsaw case')
})

for (const file of files) {
  const name = file.slice(SAMPLE.length + 1)
  t.test(`${name}: each field is a node exactly where its packing step meets its tolerance`, ECCODES, async (t) => {
    const bytes = new Uint8Array(await readFile(file))
    const { layout } = decodeTile(bytes, scanMessages(bytes), { i0: 0, j0: 0, ni: 2, nj: 2 }, false)
    const steps = ecCodesSteps(file)
    SURFACE_FIELDS.forEach(([variable, h], k) => {
      const step = steps.get(`${GRIB_NAMES[variable]}@${h}`)
      const partner = variable === 'wind_u' ? 'VGRD' : variable === 'wind_v' ? 'UGRD' : undefined
      const partnerStep = partner === undefined ? 0 : steps.get(`${partner}@${h}`) ?? Infinity
      const fine = step !== undefined && step <= SURFACE_TOLERANCES[variable] &&
        partnerStep <= SURFACE_TOLERANCES[variable]
      t.equal(layout.surfacePresent[k], fine, `${variable} at ${h} m: step ${String(step)}`)
    })
    // every bundled file keeps wind, humidity and pressure; TMP at 80 and 100 m only where packed to 0.1 K
    const nodes = surfaceLayerNodes(layout.surfacePresent)
    t.same({ ...nodes, temperature: [] }, {
      wind: [10, 20, 30, 40, 50, 80, 100], temperature: [], specific_humidity: [2, 80], pressure: [0, 80]
    })
    t.same(nodes.temperature, steps.get('TMP@80') === 1 ? [2] : [2, 80, 100])
  })
}

/**
 * Where density rises with height in 10–300 m AGL over a column, and whether the column's own nodes
 * say so (density at the node below and the node above the rise rising too, the model's own fields
 * steeper than the autoconvective lapse rate) or the interpolation made it up.
 */
function densityRises (column: Column): { made: number[], modelled: number[] } {
  const g = column.model_ground_elevation_m_msl
  const nodes = Array.from(column.z_m.subarray(0, column.count), (z) => z - g)
  const heights = [...new Set([...Array.from({ length: 291 }, (_, k) => 10 + k),
    ...nodes.filter((h) => h > 10 && h < 300)])].sort((a, b) => a - b)
  const result = computeProfile(column, { altitudes_m: heights, altitude_reference: 'agl' })
  if (!result.ok) throw new Error(result.error)
  const rho = result.levels.map((l) => l.density_kg_m3 as number)
  const at = (h: number): number => rho[heights.indexOf(h)] ?? (computeProfile(column,
    { altitudes_m: [h], altitude_reference: 'agl' }) as Extract<ProfileResult, { ok: true }>).levels[0].density_kg_m3
  const made: number[] = []
  const modelled: number[] = []
  for (let k = 1; k < heights.length; k++) {
    if (!(rho[k] > rho[k - 1])) continue
    const above = nodes.findIndex((h) => h >= heights[k])
    const byNodes = above > 0 && at(nodes[above]) > at(nodes[above - 1])
    ;(byNodes ? modelled : made).push(heights[k])
  }
  return { made, modelled }
}

t.test('density never rises with height between 10 and 300 m AGL where the model\'s own nodes do not', async (t) => {
  let columns = 0
  const modelled = new Map<string, number>()
  for (const file of files) {
    const name = file.slice(SAMPLE.length + 1)
    const bytes = new Uint8Array(await readFile(file))
    const { layout, values } = decodeTile(bytes, scanMessages(bytes), undefined, false)
    const { ni, nj, i0, j0 } = layout.box
    let made = 0
    let where = ''
    for (let j = 0; j < nj; j++) {
      for (let i = 0; i < ni; i++) {
        const rises = densityRises(columnOf(layout, values, i0 + i, j0 + j, true))
        columns++
        if (rises.made.length > 0) { made++; where ||= `(${i}, ${j}) at ${rises.made.join(', ')} m` }
        if (rises.modelled.length > 0) modelled.set(name, (modelled.get(name) ?? 0) + 1)
      }
    }
    t.equal(made, 0, `${name}: no rise the interpolation made up ${where}`)
  }
  t.equal(columns, 9 * 1617, 'every grid column of every bundled valid time')
  // the model's own fields: a hot afternoon's 2 m air 42 K/km warmer than 975 hPa 107 m above it
  // (2020-07-21 12Z, one column), and a 1000 hPa level 0.1–2.7 m above TMP's 100 m node, the two
  // 0.03–0.13 K apart, within their 0.1 K packing (2020-07-22 06Z, six columns); 2020-08-04 has none
  t.same(Object.fromEntries(modelled), {
    'gfs.20200721/12/atmos/gfs.t12z.pgrb2.0p25.f000': 1, 'gfs.20200722/06/atmos/gfs.t06z.pgrb2.0p25.f000': 6
  }, 'columns whose own nodes rise in density, by valid time')
})
