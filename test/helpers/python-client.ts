// The Python client as a user installs it: the wheel built offline by Debian's python3 from
// ./clients/python (a copy of it) (`pip wheel --no-build-isolation --no-deps`, no package index) and installed
// into a folder of its own, which PYTHONPATH then names — never the source folder.
import { execFile, execFileSync } from 'node:child_process'
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { repoPath } from './paths.js'

const exec = promisify(execFile)
/** Debian's python3, with its setuptools, wheel, pip and pandas (what .ci/run installs). */
export const PYTHON = '/usr/bin/python3'
const NEEDS = 'import setuptools, wheel, pip, pandas'

/** Why the Python client cannot be built and run here, or false when it can. */
export function pythonClientMissing (): string | false {
  try {
    execFileSync(PYTHON, ['-c', NEEDS], { stdio: 'ignore' })
    return false
  } catch {
    return `${PYTHON} cannot \`${NEEDS}\` ` +
      '(apt-get install python3-setuptools python3-wheel python3-pip python3-pandas)'
  }
}

export interface InstalledWheel {
  /** The wheel's file name. */
  wheel: string
  /** The folder it is installed in: PYTHONPATH. */
  site: string
  /** A scratch folder beside it, removed with it. */
  work: string
}

/** Builds and installs the wheel; removed when `test` ends. */
export async function installWheel (test: { teardown: (fn: () => Promise<void>) => void }): Promise<InstalledWheel> {
  const work = await mkdtemp(join(tmpdir(), 'aloft-python-client-'))
  test.teardown(() => rm(work, { recursive: true, force: true }))
  // the build writes build/ and *.egg-info beside the sources: a copy, so two tests may build at once
  await cp(repoPath('clients/python'), join(work, 'clients/python'), { recursive: true,
    filter: (path) => !/(__pycache__|\.egg-info|\/build)$/.test(path) })
  await exec(PYTHON, ['-m', 'pip', 'wheel', '--no-build-isolation', '--no-deps', './clients/python', '-w',
    join(work, 'wheel')], { cwd: work, env: { ...process.env, PIP_NO_INDEX: '1' } })
  const [wheel] = await readdir(join(work, 'wheel'))
  const site = join(work, 'site')
  await exec(PYTHON, ['-m', 'pip', 'install', '--no-index', '--no-deps', '--target', site, join(work, 'wheel', wheel)])
  return { wheel, site, work }
}
