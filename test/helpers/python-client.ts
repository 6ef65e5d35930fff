// The Python client as a user installs it: a README's install block (a ```console block's `$` lines)
// run as pasted by bash in a folder holding a copy of ./clients/python, `python3` being the interpreter
// asked for, on a machine with no package index (pip finds none, and no pip.conf names one), the
// client built with pip's build isolation on. Each test then uses the environment the block made.
import { execFile, execFileSync } from 'node:child_process'
import { chmod, cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { devNull, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { repoPath } from './paths.js'

const exec = promisify(execFile)

export interface Python {
  /** What the tests call it. */
  name: string
  /** The interpreter itself (not a shim), or null where there is none. */
  path: string | null
}

/** Debian's python3 (with `python3-venv`, and `python3-pandas` for the client's tests: .ci/run installs them). */
export const DEBIAN: Python = { name: 'Debian\'s /usr/bin/python3', path: '/usr/bin/python3' }
/** Whatever `python3` a user's shell finds (here pyenv's, without setuptools' `wheel`), as the interpreter it runs. */
export const ON_PATH: Python = { name: 'the python3 on the PATH', path: interpreter('python3') }
export const PYTHONS = [ON_PATH, DEBIAN]

function interpreter (command: string): string | null {
  try {
    return execFileSync(command, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim()
  } catch {
    return null
  }
}

/**
 * Why `python` cannot make the README's environment here (Python 3.9+ with venv and ensurepip, and
 * `modules` importable), or false when it can.
 */
export function pythonMissing (python: Python, modules: string[] = []): string | false {
  if (python.path === null) return `no ${python.name}`
  const needs = ['venv', 'ensurepip', ...modules]
  try {
    execFileSync(python.path, ['-c', `import sys, ${needs.join(', ')}; assert sys.version_info >= (3, 9)`],
      { stdio: 'ignore' })
    return false
  } catch {
    return `${python.name} (${python.path}) is not Python 3.9+ that can \`import ${needs.join(', ')}\`` +
      (python === DEBIAN ? ' (apt-get install python3-venv python3-pandas)' : '')
  }
}

/** A test needing what `missing` names: skipped saying why, or failed where CI has installed it all. */
export function pythonTest (t: Test, title: string, missing: string | false, fn: (t: Test) => Promise<void>): void {
  if (missing === false) t.test(title, fn)
  else if (process.env.ALOFT_EXPECT_PYTHON_CLIENT === '1') t.test(title, async (t) => { t.fail(missing) })
  else t.test(title, { skip: missing }, async () => {})
}

/** The first ```console block of a README's text. */
export function consoleBlock (readme: string): string {
  const block = /^```console\n([\s\S]*?)^```$/m.exec(readme)
  if (block === null) throw new Error('no console block')
  return block[1]
}

export interface Installed {
  /** The install block's exit code and output. */
  code: number
  stdout: string
  stderr: string
  /** The folder it ran in (a copy of clients/python under it); removed when the test ends. */
  work: string
  /** The python its shell ran at its end (the environment's, once activated) and that one's site-packages. */
  python: string
  site: string
  /** The wheels it left in `work`. */
  wheels: string[]
}

/** An environment with no package index (none from this machine's pip.conf or PIP_* variables either). */
export function offline (home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: home, PIP_CONFIG_FILE: devNull, PIP_NO_INDEX: '1',
    PIP_DISABLE_PIP_VERSION_CHECK: '1' }
}

const AFTER = '--- after the block ---'

/** Runs `block`'s `$` lines as pasted, `python3` being `python`, offline; removed when `test` ends. */
export async function installAsWritten (
  test: { teardown: (fn: () => Promise<void>) => void }, block: string, python: Python
): Promise<Installed> {
  if (python.path === null) throw new Error(`no ${python.name}`)
  const work = await mkdtemp(join(tmpdir(), 'aloft-python-client-'))
  test.teardown(() => rm(work, { recursive: true, force: true }))
  await cp(repoPath('clients/python'), join(work, 'clients/python'), { recursive: true,
    filter: (path) => !/(__pycache__|\.egg-info|\/build)$/.test(path) })
  // `python3` for the block is the one asked for; a script rather than a link, so sys.executable is that interpreter
  await mkdir(join(work, 'bin'))
  await writeFile(join(work, 'bin/python3'), `#!/bin/sh\nexec '${python.path}' "$@"\n`)
  await chmod(join(work, 'bin/python3'), 0o755)
  const commands = block.split('\n').filter((l) => l.startsWith('$ ')).map((l) => l.slice(2))
  const script = ['set -eo pipefail', ...commands, `echo '${AFTER}'`,
    'python -c \'import sys, sysconfig; print(sys.executable); print(sysconfig.get_paths()["purelib"])\''].join('\n')
  const env = { ...offline(work), PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}` }
  const run = await exec('bash', ['-c', script], { cwd: work, env }).then(
    (r) => ({ code: 0, ...r }), (err: { code: number, stdout: string, stderr: string }) => err)
  const [python3 = '', site = ''] = run.stdout.split(`${AFTER}\n`)[1]?.split('\n') ?? []
  const wheels = (await readdir(work)).filter((f) => f.endsWith('.whl'))
  return { code: run.code, stdout: run.stdout, stderr: run.stderr, work, python: python3, site, wheels }
}
