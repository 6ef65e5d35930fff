// The local NOAA stand-in over the real 2020 fixture files, laid out as NOAA's bucket in a
// temporary root (never the shared fixtures' own paths). Used by the source tests and, later,
// by the profile tests:
//   const up = await startSampleUpstream(t)               // all 2020 grib-filter files
//   const up = await startSampleUpstream(t, { spfh: true }) // 2020-08-04 12Z f006 as the derived SPFH file + .idx
//   up.server.bucketUrl / filterUrl / listingUrl, up.root (for mirror:<dir>), up.server.fail(...)
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Test } from 'tap'
import { inventory } from '../../src/standin/inventory.js'
import { startUpstream, type UpstreamServer } from '../../src/standin/server.js'
import { repoPath } from './paths.js'

const GRIB = repoPath('test/fixtures/grib/')
const PORBI = 'Porbi96+GFS-forecast-web-app/'
const PORBI_GFS = `${PORBI}data/gfs/`

/** The real 2020 grib-filter responses (48–56N 13–25E) and their bucket keys. */
export const SAMPLE_FILES: ReadonlyArray<{ fixture: string, key: string }> = [
  { fixture: `${PORBI}gfs.t12z.pgrb2.0p25.f000`, key: 'gfs.20200721/12/atmos/gfs.t12z.pgrb2.0p25.f000' },
  { fixture: `${PORBI}gfs.t06z.pgrb2.0p25.f000`, key: 'gfs.20200722/06/atmos/gfs.t06z.pgrb2.0p25.f000' },
  { fixture: `${PORBI_GFS}20200728/12z/gfs.pgrb2.0p25.f000`, key: 'gfs.20200728/12/atmos/gfs.t12z.pgrb2.0p25.f000' },
  { fixture: `${PORBI_GFS}20200804/12z/gfs.pgrb2.0p25.f000`, key: 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f000' },
  { fixture: `${PORBI_GFS}20200804/12z/gfs.pgrb2.0p25.f006`, key: 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006' },
  { fixture: `${PORBI_GFS}20200804/12z/gfs.pgrb2.0p25.f012`, key: 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f012' },
  { fixture: `${PORBI_GFS}20200815/12z/gfs.pgrb2.0p25.f000`, key: 'gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f000' },
  { fixture: `${PORBI_GFS}20200815/12z/gfs.pgrb2.0p25.f006`, key: 'gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f006' },
  { fixture: `${PORBI}testGrib.f000`, key: 'gfs.20200829/06/atmos/gfs.t06z.pgrb2.0p25.f000' }
]

export const DERIVED_SPFH = {
  fixture: 'derived/gfs.t12z.pgrb2.0p25.f006',
  key: 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'
}

export interface SampleTreeOptions {
  /** Serve the derived SPFH file (with its own `.idx`) as 2020-08-04 12Z f006. */
  spfh?: boolean
  /** Write a NOAA-format `.idx` beside each 2020 file (so the bucket path uses byte ranges). */
  idx?: boolean
  /** Only these keys (default: all). */
  only?: string[]
  /** Extra objects: key → fixture path under test/fixtures/grib (e.g. a file under a wrong key). */
  extra?: Record<string, string>
}


/** A temporary root in the bucket layout; removed when `t` ends. */
export async function buildSampleTree (t: Test, options: SampleTreeOptions = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'aloft-upstream-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const files = SAMPLE_FILES.filter((f) => options.only === undefined || options.only.includes(f.key))
  for (const f of files) {
    const target = join(root, f.key)
    await mkdir(dirname(target), { recursive: true })
    if (options.spfh === true && f.key === DERIVED_SPFH.key) {
      await copyFile(join(GRIB, DERIVED_SPFH.fixture), target)
      await copyFile(join(GRIB, DERIVED_SPFH.fixture + '.idx'), target + '.idx')
      continue
    }
    await copyFile(join(GRIB, f.fixture), target)
    if (options.idx === true) await writeFile(target + '.idx', inventory(new Uint8Array(await readFile(target))))
  }
  for (const [key, fixture] of Object.entries(options.extra ?? {})) {
    await mkdir(dirname(join(root, key)), { recursive: true })
    await copyFile(join(GRIB, fixture), join(root, key))
  }
  return root
}

/** The stand-in serving a fresh sample tree on 127.0.0.1; closed when `t` ends. */
export async function startSampleUpstream (
  t: Test,
  options: SampleTreeOptions = {}
): Promise<{ server: UpstreamServer, root: string }> {
  const root = await buildSampleTree(t, options)
  const server = await startUpstream({ root })
  t.teardown(() => server.close())
  return { server, root }
}
