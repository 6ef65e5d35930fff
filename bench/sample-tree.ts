// The bundled sample (data/sample) copied to a temporary root in NOAA's bucket layout, each file
// with a NOAA-format `.idx` beside it, for the local upstream stand-in to serve. (A tidy copy of
// test/helpers/upstream.ts's tree, without tap: benchmarks import src only.)
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { isobaricLevelText, scanMessages } from '../src/grib/index.js'
import { SAMPLE } from './lib.js'

/** A NOAA-format inventory of a GRIB2 file: `n:offset:d=YYYYMMDDHH:VAR:LEVEL:STEP:`. */
export function inventory (bytes: Uint8Array): string {
  const lines: string[] = []
  let n = 0
  let lastMessage = -1
  for (const f of scanMessages(bytes)) {
    if (f.message !== lastMessage) { n++; lastMessage = f.message }
    const d = f.referenceTime.replace(/[-T:]/g, '').slice(0, 10)
    const level = f.level.type === 100 && f.level.value !== null
      ? isobaricLevelText(f.level.value)
      : f.level.type === 1 ? 'surface' : `level type ${f.level.type} ${f.level.value ?? ''}`.trim()
    lines.push(`${n}:${f.offset}:d=${d}:${f.name}:${level}:${f.stepHours === 0 ? 'anl' : `${f.stepHours} hour fcst`}:`)
  }
  return lines.join('\n') + '\n'
}

/** Bucket keys of the sample's GRIB2 files (`gfs.YYYYMMDD/CC/atmos/gfs.tCCz.pgrb2.0p25.fFFF`). */
export async function sampleKeys (): Promise<string[]> {
  const out: string[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) await walk(p)
      else if (/^gfs\.t\d\dz\.pgrb2\.0p25\.f\d{3}$/.test(e.name)) out.push(relative(SAMPLE, p))
    }
  }
  await walk(SAMPLE)
  return out.sort()
}

export interface SampleTree { root: string, keys: string[], remove: () => Promise<void> }

/** A temporary copy of the sample with `.idx` files; `remove()` deletes it. */
export async function buildSampleTree (): Promise<SampleTree> {
  const root = await mkdtemp(join(tmpdir(), 'aloft-bench-upstream-'))
  try {
    const keys = await sampleKeys()
    for (const key of keys) {
      const target = join(root, key)
      await mkdir(dirname(target), { recursive: true })
      await copyFile(join(SAMPLE, key), target)
      await writeFile(target + '.idx', inventory(new Uint8Array(await readFile(target))))
    }
    return { root, keys, remove: async () => await rm(root, { recursive: true, force: true }) }
  } catch (err) {
    await rm(root, { recursive: true, force: true })
    throw err
  }
}
