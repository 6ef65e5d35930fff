// `npm test` piped to a file or a CI log: scripts/tap.mjs runs tap with the summary reporter
// (a line a passing file, a failing file in full, the counts) and the coverage summary, and the
// coverage gate still fails the run. Run for real on a small project of its own in a temporary
// directory, so this run's tap state is left alone.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../helpers/cli.js'

const dir = await mkdtemp(join(tmpdir(), 'aloft-reporter-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
// the project's own plugin list: tap rebuilds its shared @tapjs/test (the node_modules linked here)
// whenever a run's plugins differ from its build, which would leave this project's next run
// starting every test file with the default plugins' loaders (TypeScript's among them)
const { tap: projectTap } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as
  { tap: { plugin: string[] } }
await writeFile(join(dir, 'package.json'), JSON.stringify({
  name: 'reporter-fixture', type: 'module', private: true,
  tap: { include: ['*.test.mjs'], plugin: projectTap.plugin, statements: 100, branches: 100, functions: 100,
    lines: 100 }
}))
await writeFile(join(dir, 'lib.mjs'), 'export function half (x) {\n  if (x > 0) return x / 2\n  return 0\n}\n')
await writeFile(join(dir, 'passes.test.mjs'), "import t from 'tap'\nimport { half } from './lib.mjs'\n" +
  "t.test('half of four', async (t) => { t.equal(half(4), 2) })\n" +
  "t.test('half of a picture', { skip: 'no display here' }, async () => {})\n" +
  "t.test('half of a print', async (t) => { t.skip('no printer here') })\n")
await writeFile(join(dir, 'fails.test.mjs'), "import t from 'tap'\n" +
  "t.test('arithmetic', async (t) => { t.equal(1, 1, 'one is one'); t.equal(1 + 1, 3, 'two is three') })\n")

/** scripts/tap.mjs in the fixture project, stdout a pipe as in CI; out of this tap run's sight. */
async function runTap (args: string[]): Promise<{ code: number | null, out: string }> {
  const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, join(ROOT, 'scripts/tap.mjs'), ...args],
    { cwd: dir, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { out += d })
  const [code] = await once(child, 'close') as [number | null]
  return { code, out }
}

// one run for both (each tap run here costs seconds of CPU): a passing and a failing file, coverage on
const piped = runTap(['passes.test.mjs', 'fails.test.mjs'])

t.test('piped: a line for a passing file, the failing file in full, the counts; exit 1', async (t) => {
  const r = await piped
  t.equal(r.code, 1)
  t.match(r.out, /^ok {6}passes\.test\.mjs {2}\(/m)
  t.notMatch(r.out, /half of four/, 'nothing more of a passing file')
  t.match(r.out, /FAILED: fails\.test\.mjs/)
  t.match(r.out, /ok 1 - one is one/, 'every assertion of the failing file')
  t.match(r.out, /not ok 2 - two is three[\s\S]*-3\n\s*\+2/, 'its diagnostics and diff')
  t.match(r.out, /# \{ total: 5, pass: 2, fail: 1, skip: 2 \}/)
  // a skip option's reason follows its name; t.skip('…')'s reason is its name
  t.match(r.out, new RegExp('\nskipped \\(2\\):\n {2}passes\\.test\\.mjs: half of a picture — no display here\n' +
    ' {2}passes\\.test\\.mjs: no printer here\n'), 'each skipped test named, with its file and reason')
  t.notMatch(r.out, /TAP version/, 'no raw TAP framing')
  t.ok(r.out.split('\n').length < 100, `${r.out.split('\n').length} lines`)
})

t.test('piped: the coverage summary, and the gate still fails the run', async (t) => {
  const r = await piped
  t.match(r.out, /Coverage summary/)
  t.match(r.out, /Statements\s+: [\d.]+%/)
  t.match(r.out, /incomplete (statements|branches|lines) coverage/, 'lib.mjs\'s other branch is not covered')
})

t.test('a reporter given explicitly wins', async (t) => {
  const r = await runTap(['--disable-coverage', '--reporter=tap', 'passes.test.mjs'])
  t.equal(r.code, 0)
  t.match(r.out, /^TAP version 14$/m)
  t.match(r.out, /ok 1 - should be equal/)
})
