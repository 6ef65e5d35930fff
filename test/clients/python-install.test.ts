// The Python client installed as clients/python/README.md writes it: its install block run as pasted,
// offline (no package index), pip's build isolation on, with each python3 a user may meet: the one the
// PATH finds (on the dev machine pyenv's 3.11.7, which has no `wheel`) and Debian's. What it builds and
// installs is held to pyproject.toml's promises; the client's own build backend (clients/python/backend)
// to tomllib, and to refusing what it does not read.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { mkdir, readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { repoPath } from '../helpers/paths.js'
import {
  consoleBlock, DEBIAN, installAsWritten, offline, ON_PATH, type Python, pythonMissing, PYTHONS, pythonTest
} from '../helpers/python-client.js'

const exec = promisify(execFile)
const block = consoleBlock(await readFile(repoPath('clients/python/README.md'), 'utf8'))

/** Every entry of a wheel, the files its RECORD lists, and those whose hash or size is not the RECORD's. */
const CHECK_RECORD = `
import base64, csv, hashlib, io, json, sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
record = [n for n in wheel.namelist() if n.endswith(".dist-info/RECORD")][0]
rows = list(csv.reader(io.TextIOWrapper(wheel.open(record), "utf-8")))
def entry(data):
    return ["sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), str(len(data))]
wrong = [n for n, *said in rows if said != (["", ""] if n == record else entry(wheel.read(n)))]
print(json.dumps({"entries": wheel.namelist(), "listed": [row[0] for row in rows], "wrong": wrong}))
`
/** What the environment's installed distribution says of itself. */
const DESCRIBE = `
import importlib.metadata, json, os, aloft
d = importlib.metadata.distribution("aloft-client")
print(json.dumps({"name": d.metadata["Name"], "version": d.version, "requires_python": d.metadata["Requires-Python"],
  "extras": d.metadata.get_all("Provides-Extra"), "requires": d.requires, "__version__": aloft.__version__,
  "typed": os.path.isfile(os.path.join(os.path.dirname(aloft.__file__), "py.typed")), "file": aloft.__file__}))
`

/** Runs `code` in clients/python (or a copy), its backend importable, no bytecode written; what it printed. */
async function withBackend (python: Python, code: string, cwd = repoPath('clients/python')): Promise<string> {
  const { stdout } = await exec(python.path ?? 'python3',
    ['-c', `import sys; sys.path.insert(0, "backend")\n${code}`],
    { cwd, env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8' }
  ).then((r) => r, (err: { stderr: string }) => ({ stdout: err.stderr }))
  return stdout
}

async function installedWith (t: Test, python: Python): Promise<void> {
  const installed = await installAsWritten(t, block, python)
  const { work } = installed

  t.test('the install block runs as pasted, offline, with build isolation', async (t) => {
    t.equal(installed.code, 0, 'exit code', { stderr: installed.stderr.slice(-3000) })
  })
  // the rest look at what it made
  if (installed.code !== 0) return

  t.test('pip wheel leaves one pure-Python wheel, named for the package', async (t) => {
    t.equal(installed.wheels.length, 1)
    t.match(installed.wheels[0], /^aloft_client-\d+\.\d+\.\d+-py3-none-any\.whl$/)
  })

  t.test('the wheel\'s RECORD lists every file in it once, each with its sha256 and size', async (t) => {
    const { stdout } = await exec(python.path ?? '', ['-c', CHECK_RECORD, join(work, installed.wheels[0])])
    const { entries, listed, wrong } = JSON.parse(stdout) as Record<string, string[]>
    t.same([...listed].sort(), [...entries].sort())
    t.equal(new Set(listed).size, listed.length, 'none twice')
    t.same(wrong, [], 'every hash and size right, RECORD\'s own left empty')
  })

  t.test('the installed client says its name, version, Python 3.9+ and extras, and holds py.typed', async (t) => {
    const { stdout } = await exec(installed.python, ['-c', DESCRIBE], { cwd: work })
    const d = JSON.parse(stdout) as Record<string, unknown>
    t.match(d, {
      name: 'aloft-client', version: d.__version__, requires_python: '>=3.9', extras: ['frames', 'arrow'],
      requires: ['pandas>=1.3; extra == "frames"', 'pandas>=1.3; extra == "arrow"', 'pyarrow>=10; extra == "arrow"'],
      typed: true
    })
    t.ok(String(d.file).startsWith(installed.site), `imported from the environment: ${String(d.file)}`)
  })

  t.test('its sdist builds offline into the same wheel, byte for byte', async (t) => {
    const source = join(work, 'clients/python')
    const sdist = (await withBackend(python, `import aloft_build; print(aloft_build.build_sdist(${
      JSON.stringify(work)}))`, source)).trim()
    t.match(sdist, /^aloft_client-\d+\.\d+\.\d+\.tar\.gz$/)
    await mkdir(join(work, 'from-sdist'))
    await exec(installed.python, ['-m', 'pip', 'wheel', '--no-deps', '-w', join(work, 'from-sdist'), join(work, sdist)],
      { cwd: work, env: offline(work) })
    const [wheel] = await readdir(join(work, 'from-sdist'))
    t.equal(wheel, installed.wheels[0])
    t.ok((await readFile(join(work, 'from-sdist', wheel))).equals(await readFile(join(work, wheel))), 'the same bytes')
  })
}

for (const python of PYTHONS) {
  pythonTest(t, `clients/python/README.md's install, with ${python.name}`, pythonMissing(python),
    (t) => installedWith(t, python))
}

pythonTest(t, 'the backend reads pyproject.toml as tomllib does', pythonMissing(DEBIAN, ['tomllib']), async (t) => {
  const out = await withBackend(DEBIAN, `import tomllib
from aloft_build.toml_subset import loads
text = open("pyproject.toml", encoding="utf-8").read()
print(loads(text) == tomllib.loads(text))`)
  t.equal(out.trim(), 'True')
})

pythonTest(t, 'TOML the backend does not read is refused, naming its line', pythonMissing(ON_PATH), async (t) => {
  const out = await withBackend(ON_PATH, `from aloft_build.toml_subset import loads
loads('[project]\\nname = "aloft-client"\\nlicense = { text = "MIT" }\\n')`)
  t.match(out, /TomlError: line 3: only strings and arrays of strings are read/)
})

pythonTest(t, 'a [project] key the backend does not write is refused, not left out', pythonMissing(ON_PATH),
  async (t) => {
    const out = await withBackend(ON_PATH, `import os, tempfile
from aloft_build.project import read_project
with tempfile.TemporaryDirectory() as root:
    with open(os.path.join(root, "pyproject.toml"), "w") as f:
        f.write('[project]\\nname = "aloft-client"\\nversion = "1"\\nkeywords = ["wind"]\\n')
    read_project(root)`)
    t.match(out, /ValueError: pyproject\.toml: \[project\] keywords is not written by aloft_build/)
  })
