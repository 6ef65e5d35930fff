// The start-up check of a mirror directory: it must exist and hold a GFS file that is GRIB.
import t from 'tap'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mirrorDirectoryProblem } from '../../src/source/index.js'
import { SAMPLE_DIR } from '../helpers/service.js'

const dir = await mkdtemp(join(tmpdir(), 'aloft-mirror-check-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
const FILE = 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f000'

t.test('the bundled sample can serve', async (t) => {
  t.equal(await mirrorDirectoryProblem(SAMPLE_DIR), null)
})

t.test('a directory that does not exist is named', async (t) => {
  t.equal(await mirrorDirectoryProblem(join(dir, 'nowhere')), `the mirror directory ${join(dir, 'nowhere')} does ` +
    'not exist')
})

t.test('a file is not a mirror', async (t) => {
  await writeFile(join(dir, 'plain'), 'x')
  t.equal(await mirrorDirectoryProblem(join(dir, 'plain')), `the mirror ${join(dir, 'plain')} is not a directory`)
})

t.test('a directory without the bucket layout holds no GFS files', async (t) => {
  const empty = await mkdtemp(join(dir, 'empty-'))
  await mkdir(join(empty, 'gfs.20200804/12/atmos'), { recursive: true })
  t.match(await mirrorDirectoryProblem(empty), /holds no GFS files in the bucket layout/)
})

t.test('files named as GFS that are not GRIB (or cannot be read) do not count', async (t) => {
  const fake = await mkdtemp(join(dir, 'fake-'))
  await mkdir(join(fake, FILE), { recursive: true }) // a directory under a file's name
  await writeFile(join(fake, 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'), '<html>')
  t.match(await mirrorDirectoryProblem(fake), /holds files named as GFS GRIB2 .*, but the newest 2 are not GRIB$/)
})

t.test('one GRIB file among the newest is enough', async (t) => {
  const mixed = await mkdtemp(join(dir, 'mixed-'))
  await mkdir(join(mixed, 'gfs.20200804/12/atmos'), { recursive: true })
  await writeFile(join(mixed, FILE), 'GRIB and the rest')
  await writeFile(join(mixed, 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'), '<html>')
  t.equal(await mirrorDirectoryProblem(mixed), null)
})
