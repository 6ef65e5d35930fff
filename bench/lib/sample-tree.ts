// The bundled sample (data/sample) copied to a temporary root in NOAA's bucket layout, each file
// with a NOAA-format `.idx` beside it, for the local upstream stand-in to serve.
// (Benchmarks import src only, never test helpers.)
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { inventory } from '../../src/standin/inventory.js'
import { SAMPLE } from './paths.js'


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
