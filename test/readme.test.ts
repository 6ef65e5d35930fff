// The README as a newcomer follows it: `npm run demo` (the built `aloft demo`) on a free port, the
// `export` lines it prints pasted into a shell, then every example block run as written: each
// ```sh block by bash (curl failing on any HTTP error, as `--fail-with-body` makes it; `aloft` on
// the PATH as `npm link` puts it), the ```python block where pyarrow is importable, the ```js block
// with node. Blocks that are not meant to run carry another fence language: ```console (what
// starts the demo, the suite, a failed start), ```json and ```text (answers, usage, layout); but the
// Clients install block, a ```console block too, is run as pasted by tests of its own, offline, with
// each python3. The valid times and exit codes the README lists are those the code has. One demo
// serves every test.
import t, { type Test } from 'tap'
import { execFile, execFileSync } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { EXIT_CODES } from '../src/cli/exit-codes.js'
import { MAIN, ROOT } from './helpers/cli.js'
import { startDemo } from './helpers/demo.js'
import {
  DEBIAN, type Installed, installAsWritten, type Python, pythonMissing, PYTHONS, pythonTest
} from './helpers/python-client.js'

const exec = promisify(execFile)
const readme = await readFile(`${ROOT}README.md`, 'utf8')

/** Fence languages a block may have: the first three are run, the rest shown only. */
const RUN = ['sh', 'python', 'js']
const SHOWN = ['console', 'json', 'text']

interface Block { lang: string, code: string, line: number }

const blocks: Block[] = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1], code: m[2], line: readme.slice(0, m.index).split('\n').length
}))
const runnable = (lang: string): Block[] => blocks.filter((b) => b.lang === lang)

function works (command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const demo = await startDemo(t)

/** A shell's environment after the demo's export lines, in a directory of its own, `aloft` on the PATH. */
async function shell (t: Test): Promise<{ cwd: string, env: NodeJS.ProcessEnv }> {
  const cwd = await mkdtemp(join(tmpdir(), 'aloft-readme-'))
  t.teardown(() => rm(cwd, { recursive: true, force: true }))
  // what `npm link` puts on the PATH: the package's bin
  await writeFile(join(cwd, 'aloft'), `#!/bin/sh\nexec "${process.execPath}" "${ROOT}${MAIN}" "$@"\n`)
  await chmod(join(cwd, 'aloft'), 0o755)
  return { cwd, env: { PATH: `${cwd}:${process.env.PATH ?? ''}`, HOME: cwd, ...demo.exports } }
}

t.test('the demo prints the three export lines the examples read, its own address among them', async (t) => {
  t.same(Object.keys(demo.exports).sort(), ['ALOFT_ADMIN_TOKEN', 'ALOFT_API_KEY', 'ALOFT_URL'])
  t.equal(demo.exports.ALOFT_URL, demo.url)
})

t.test('every fenced block is run or marked as shown only', async (t) => {
  for (const b of blocks) t.ok([...RUN, ...SHOWN].includes(b.lang), `README.md:${b.line} is \`\`\`${b.lang}`)
  for (const lang of RUN) t.ok(runnable(lang).length > 0, `some ${lang} block`)
})

t.test('no example names a port, a host or a key of its own: each reads the demo\'s exports', async (t) => {
  for (const b of blocks.filter((b) => RUN.includes(b.lang))) {
    // a line that is all comment shows an answer, not something to paste
    const code = b.code.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n')
    t.notMatch(code, /localhost|127\.0\.0\.1|:8080|\$KEY\b|key_…|aloft_…/, `README.md:${b.line}`)
  }
})

/** What each sh block printed, by its line in the README. */
const printed = new Map<number, string>()
const hasCurl = works('curl', ['--version'])

t.test('every sh block runs as pasted against the demo, no HTTP error', { skip: !hasCurl && 'no curl here' },
  async (t) => {
    const { cwd, env } = await shell(t)
    for (const b of runnable('sh')) {
      const script = `set -eo pipefail\ncurl () { command curl --fail-with-body "$@"; }\n${b.code}`
      const run = await exec('bash', ['-c', script], { cwd, env, encoding: 'utf8' }).then(
        (r) => ({ code: 0, ...r }), (err: { code: number, stdout: string, stderr: string }) => err)
      t.equal(run.code, 0, `README.md:${b.line}: ${b.code.split('\n')[0].slice(0, 90)}`,
        { stdout: run.stdout.slice(0, 2000), stderr: run.stderr })
      printed.set(b.line, run.stdout)
    }
    t.match(await readFile(join(cwd, 'flight.kml'), 'utf8'), /<LineString>/, 'aloft trajectory wrote its KML')
  })

/**
 * Where an answer the README shows differs from the one the demo gave, or null. `"…"` matches
 * anything; an object with a `"…"` key may have more fields (else exactly those shown); an array
 * entry beginning with `…` stands for further entries (those before it are the first, those after
 * the last); a text ending in `…` is a beginning.
 */
function differs (shown: unknown, got: unknown, at = '$'): string | null {
  if (typeof shown === 'string' && shown.startsWith('…')) return null
  if (typeof shown === 'string' && shown.endsWith('…')) {
    return typeof got === 'string' && got.startsWith(shown.slice(0, -1)) ? null : `${at}: ${JSON.stringify(got)}`
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(got)) return `${at}: not an array`
    const gap = shown.findIndex((x) => typeof x === 'string' && x.startsWith('…'))
    if (gap < 0 && shown.length !== got.length) return `${at}: ${got.length} entries, ${shown.length} shown`
    const head = gap < 0 ? shown : shown.slice(0, gap)
    const tail = gap < 0 ? [] : shown.slice(shown.findLastIndex((x) => typeof x === 'string' && x.startsWith('…')) + 1)
    if (head.length + tail.length > got.length) return `${at}: ${got.length} entries, more shown`
    for (const [k, x] of head.entries()) { const d = differs(x, got[k], `${at}[${k}]`); if (d !== null) return d }
    for (const [k, x] of tail.entries()) {
      const n = got.length - tail.length + k
      const d = differs(x, got[n], `${at}[${n}]`)
      if (d !== null) return d
    }
    return null
  }
  if (shown !== null && typeof shown === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${at}: not an object`
    const fields = shown as Record<string, unknown>
    const answer = got as Record<string, unknown>
    if (!('…' in fields)) {
      const extra = Object.keys(answer).filter((k) => !(k in fields))
      if (extra.length > 0) return `${at}: fields not shown: ${extra.join(', ')}`
    }
    for (const [k, x] of Object.entries(fields)) {
      if (k === '…') continue
      if (!(k in answer)) return `${at}.${k}: missing`
      const d = differs(x, answer[k], `${at}.${k}`)
      if (d !== null) return d
    }
    return null
  }
  return Object.is(shown, got) ? null : `${at}: ${JSON.stringify(got)}, ${JSON.stringify(shown)} shown`
}

t.test('every answer shown after an example is the demo\'s answer but for the parts marked "…"', {
  skip: !hasCurl && 'no curl here'
}, async (t) => {
  const shown = blocks.filter((b, k) => b.lang === 'json' && blocks[k - 1]?.lang === 'sh')
  t.ok(shown.length >= 3, `${shown.length} answers shown after an example`)
  for (const b of shown) {
    const example = blocks[blocks.indexOf(b) - 1]
    const out = printed.get(example.line)
    if (out === undefined) { t.fail(`README.md:${example.line} did not run`); continue }
    t.equal(differs(JSON.parse(b.code), JSON.parse(out)), null, `README.md:${b.line}`)
  }
})

/** The Arrow example (pyarrow and the standard library) and the Clients one (the `aloft` wheel). */
const clientPython = runnable('python').filter((b) => /^import aloft$/m.test(b.code))
const arrowPython = runnable('python').filter((b) => !clientPython.includes(b))

t.test('the python block runs as pasted', {
  skip: !works('python3', ['-c', 'import pyarrow']) && 'pyarrow is not importable by python3 here'
}, async (t) => {
  const { cwd, env } = await shell(t)
  const [b] = arrowPython
  const { stdout } = await exec('python3', ['-c', b.code], { cwd, env, encoding: 'utf8' })
  t.match(stdout, /2020-08-04T12:00:00Z/)
})

t.test('every python block is Python, and each reads the demo\'s exports', {
  skip: !works('python3', ['--version']) && 'no python3 here'
}, async (t) => {
  t.equal(arrowPython.length, 1)
  t.equal(clientPython.length, 1)
  for (const b of runnable('python')) {
    let syntax = ''
    try {
      execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: b.code,
        stdio: ['pipe', 'ignore', 'pipe'] })
    } catch (err) {
      syntax = String((err as { stderr: Buffer }).stderr)
    }
    t.equal(syntax, '', `README.md:${b.line}: no syntax error`)
  }
  t.match(arrowPython[0].code, /os\.environ\["ALOFT_URL"\][\s\S]*os\.environ\["ALOFT_API_KEY"\]/,
    'it reads the demo\'s exports')
  t.match(clientPython[0].code, /aloft\.Client\(\)/, 'the client reads them itself')
})

/** The Clients install block, the one before the Clients python block; each python3's environment made by it. */
const clientInstall = blocks[blocks.indexOf(clientPython[0]) - 1]
const installs = new Map<Python, Promise<Installed>>()
function installed (python: Python): Promise<Installed> {
  const made = installs.get(python) ?? installAsWritten(t, clientInstall.code, python)
  installs.set(python, made)
  return made
}

t.test('the Clients install block is a console block of venv and pip lines', async (t) => {
  t.equal(clientInstall.lang, 'console')
  t.match(clientInstall.code, /^\$ python3 -m venv [^\n]*\n\$ pip install [^\n]*\.\/clients\/python\n/)
})

for (const python of PYTHONS) {
  pythonTest(t, `the Clients install block runs as pasted, offline, with ${python.name}`, pythonMissing(python),
    async (t) => {
      const { code, stderr, python: inside, work } = await installed(python)
      t.equal(code, 0, 'exit code', { stderr: stderr.slice(-3000) })
      const { stdout } = await exec(inside, ['-c', 'import aloft; print(aloft.__version__)'], { cwd: work })
      t.match(stdout, /^\d+\.\d+\.\d+$/m, 'aloft imports in the environment it made')
    })
}

pythonTest(t, 'the Clients python block runs as pasted where the install block put the client (Debian\'s python3, ' +
  'its pandas), and prints what it shows', pythonMissing(DEBIAN, ['pandas']), async (t) => {
  const { cwd, env } = await shell(t)
  const { python } = await installed(DEBIAN)
  const [b] = clientPython
  const { stdout } = await exec(python, ['-c', b.code], { cwd, env, encoding: 'utf8' })
  const shown = blocks[blocks.indexOf(b) + 1]
  t.equal(shown.lang, 'text', 'what it prints is shown after it')
  for (const line of shown.code.trimEnd().split('\n')) {
    const head = line.endsWith('…') ? line.slice(0, -1) : line
    t.ok(stdout.split('\n').some((l) => l.startsWith(head)), `prints ${line}`, { stdout })
  }
  t.match(stdout, /2020-08-04 13:00:00\+00:00 +500\.0 +ok/, 'the frame: a UTC time, the height and the status')
})

t.test('the js blocks run as pasted with node', async (t) => {
  const { env } = await shell(t)
  const [arrow, client] = runnable('js')
  t.equal(runnable('js').length, 2)
  // from the clone, where apache-arrow is installed and @aloft/client is a workspace, as the README says
  const run = (code: string): Promise<{ stdout: string }> => exec(process.execPath, ['--input-type=module', '-e', code],
    { cwd: ROOT, env, encoding: 'utf8' })
  t.match((await run(arrow.code)).stdout, /^Float64Array\(2\) \[ \d+\.\d+, \d+\.\d+ \]/)
  const { stdout } = await run(client.code)
  t.match(stdout, /^\d+\.\d+ 2020-08-04T12:00:00Z\n2 \[ \d+\.\d+, \d+\.\d+ \] 2020-08-04T12:00:00Z\n400 invalid_request /)
  t.match(stdout, /- latitude \(Latitude\): Must be 90 or less\./)
})

t.test('the README lists the valid times the demo prints', async (t) => {
  const block = demo.stdout.slice(demo.stdout.indexOf('valid times with data'), demo.stdout.indexOf('try:'))
  const printed = [...block.matchAll(/\d{4}-\d\d-\d\dT\d\d:00:00Z/g)].map((m) => m[0])
  const section = readme.slice(readme.indexOf('| day | valid times (UTC) |'))
  const listed = [...section.slice(0, section.indexOf('\n\n')).matchAll(/`(\d{4}-\d\d-\d\dT\d\d:00:00Z)`/g)]
    .map((m) => m[1])
  t.equal(listed.length, 9)
  t.same(listed, printed)
})

t.test('the README\'s exit codes are the command\'s', async (t) => {
  for (const { code } of Object.values(EXIT_CODES)) t.match(readme, new RegExp(`^\\| ${code} \\| `, 'm'), String(code))
})
