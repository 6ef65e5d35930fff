// The README as a newcomer follows it: `npm run demo` (the built `aloft demo`) on a free port, the
// `export` lines it prints pasted into a shell, then every example block run as written: each
// ```sh block by bash (curl failing on any HTTP error, as `--fail-with-body` makes it; `aloft` on
// the PATH as `npm link` puts it), the ```python block where pyarrow is importable, the ```js block
// with node. Blocks that are not meant to run carry another fence language: ```console (what
// starts the demo, the suite, a failed start), ```json and ```text (answers, usage, layout); but the
// Clients install block, a ```console block too, is run as pasted by tests of its own, offline, with
// each python3. Every output shown after a command is what it printed, but for the README's elision
// mark `…` and the address (the README's is the default, port 8080): a ```json block right after an
// sh block, an sh block's closing comment lines, a ```text block the prose before it introduces with
// a colon, and the lines after a console block's `$` command, which is run in the clone for that.
// The valid times and exit codes the README lists are those the code has. One demo serves every test.
import t, { type Test } from 'tap'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { EXIT_CODES } from '../src/cli/exit-codes.js'
import { MAIN, ROOT } from './helpers/cli.js'
import { startDemo } from './helpers/demo.js'
import {
  consoleBlock, DEBIAN, type Installed, installAsWritten, type Python, pythonMissing, pythonTest
} from './helpers/python-client.js'
import { redisUrl, testPrefix } from './helpers/redis.js'
import { differs, fragmentDiffers, jsonValues, linesDiffer } from './helpers/shown-output.js'

const exec = promisify(execFile)
const readme = await readFile(`${ROOT}README.md`, 'utf8')

/** Fence languages a block may have: the first three are run, the rest shown only. */
const RUN = ['sh', 'python', 'js']
const SHOWN = ['console', 'json', 'text']

/** A fenced block: its language, its text, its first line in the README and the prose before it. */
interface Block { lang: string, code: string, line: number, before: string }

const blocks: Block[] = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m, k, all) => {
  const after = k === 0 ? 0 : all[k - 1].index + all[k - 1][0].length
  const line = readme.slice(0, m.index).split('\n').length
  return { lang: m[1], code: m[2], line, before: readme.slice(after, m.index) }
})
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

/** What each sh block printed, and the HTTP status of each of its curls in turn, by its line in the README. */
const printed = new Map<number, { stdout: string, statuses: number[] }>()
const hasCurl = works('curl', ['--version'])

/** The README's port, the default, where a run printed an address with its own (a number that is not one stays). */
function asShown (text: string, port: number | string): string {
  return text.replace(new RegExp(`((?:\\d{1,3}\\.){3}\\d{1,3}|localhost|\\]):${port}\\b`, 'g'), '$1:8080')
}
const demoPort = new URL(demo.url).port

t.test('every sh block runs as pasted against the demo, no HTTP error', { skip: !hasCurl && 'no curl here' },
  async (t) => {
    const { cwd, env } = await shell(t)
    for (const b of runnable('sh')) {
      // each curl's status on stderr after its answer, for the outputs shown with one (`# → 201 …`)
      const script = 'set -eo pipefail\ncurl () { command curl --fail-with-body --write-out ' +
        `'%{stderr}HTTP %{http_code}\\n' "$@"; }\n${b.code}`
      const run = await exec('bash', ['-c', script], { cwd, env, encoding: 'utf8' }).then(
        (r) => ({ code: 0, ...r }), (err: { code: number, stdout: string, stderr: string }) => err)
      t.equal(run.code, 0, `README.md:${b.line}: ${b.code.split('\n')[0].slice(0, 90)}`,
        { stdout: run.stdout.slice(0, 2000), stderr: run.stderr })
      const statuses = [...run.stderr.matchAll(/^HTTP (\d{3})$/gm)].map((m) => Number(m[1]))
      printed.set(b.line, { stdout: asShown(run.stdout, demoPort), statuses })
    }
    t.match(await readFile(join(cwd, 'flight.kml'), 'utf8'), /<LineString>/, 'aloft trajectory wrote its KML')
  })

t.test('every answer shown after an example is the demo\'s answer but for the parts marked "…"', {
  skip: !hasCurl && 'no curl here'
}, async (t) => {
  const shown = blocks.filter((b, k) => b.lang === 'json' && blocks[k - 1]?.lang === 'sh')
  t.ok(shown.length >= 3, `${shown.length} answers shown after an example`)
  for (const b of shown) {
    const example = blocks[blocks.indexOf(b) - 1]
    const out = printed.get(example.line)
    if (out === undefined) { t.fail(`README.md:${example.line} did not run`); continue }
    t.equal(differs(JSON.parse(b.code), JSON.parse(out.stdout)), null, `README.md:${b.line}`)
  }
})

/** Where an output shown as text differs from what was printed: a JSON answer, a fragment of one, or lines. */
function textDiffers (shown: string, got: string): string | null {
  const json = parsed(shown)
  if (json !== undefined) return differs(json, parsed(got) ?? got)
  const fragment = parsed(`{${shown}}`)
  if (fragment !== undefined) return fragmentDiffers(fragment as Record<string, unknown>, jsonValues(got))
  return linesDiffer(shown, got)
}

function parsed (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** An sh block's closing comment lines: what it prints (`# → ` before a single answer), or null. */
function commentedOutput (b: Block): string | null {
  const lines = b.code.trimEnd().split('\n')
  let first = lines.length
  while (first > 0 && /^#( |$)/.test(lines[first - 1])) first--
  if (first === lines.length) return null
  return lines.slice(first).map((l) => l.slice(2)).join('\n').replace(/^→ /, '')
}

t.test('what an example\'s closing comments show it printing is what it printed', {
  skip: !hasCurl && 'no curl here'
}, async (t) => {
  const commented = runnable('sh').filter((b) => commentedOutput(b) !== null)
  t.ok(commented.length >= 2, `${commented.length} examples show their output in comments`)
  for (const b of commented) {
    const out = printed.get(b.line)
    if (out === undefined) { t.fail(`README.md:${b.line} did not run`); continue }
    const shown = commentedOutput(b)!
    // an answer shown with its status: `201 {…}`, the status of the block's last curl
    const status = /^(\d{3}) (\{[\s\S]*)$/.exec(shown)
    if (status !== null) t.equal(out.statuses.at(-1), Number(status[1]), `README.md:${b.line}: HTTP status`)
    t.equal(textDiffers(status?.[2] ?? shown, out.stdout), null, `README.md:${b.line}`, { printed: out.stdout })
  }
})

/** Text blocks showing what the command block before them printed: right after it, or introduced with a colon. */
const shownAfterCommand = blocks.filter((b, k) => b.lang === 'text' &&
  ['sh', 'console'].includes(blocks[k - 1]?.lang) && /(^|:)\s*$/.test(b.before))

t.test('every text shown after a command is what it printed but for the parts marked "…"', {
  skip: !hasCurl && 'no curl here'
}, async (t) => {
  t.ok(shownAfterCommand.length >= 2, `${shownAfterCommand.length} texts shown after a command`)
  for (const b of shownAfterCommand) {
    const command = blocks[blocks.indexOf(b) - 1]
    // a console block is not run here, but the demo it starts is: the one these tests use
    const out = command.lang === 'sh' ? printed.get(command.line)?.stdout
      : /\bnpm run demo\b/.test(command.code) ? asShown(demo.stdout, demoPort) : undefined
    if (out === undefined) { t.fail(`README.md:${command.line}: nothing it printed to compare with`); continue }
    t.equal(textDiffers(b.code, out), null, `README.md:${b.line}, after README.md:${command.line}`, { printed: out })
  }
})

/** A console block's `$` commands, each with the lines shown after it. */
function sessions (b: Block): Array<{ command: string, shown: string }> {
  return b.code.split(/^\$ /m).slice(1).map((part) => {
    const [command, ...shown] = part.split('\n')
    return { command, shown: shown.join('\n').trimEnd() }
  })
}

/**
 * Console commands a test of their own runs as written, where they must run (and checks what they print
 * against what the README shows): not run here too.
 */
const RUN_ELSEWHERE = [
  /^npm run screenshots -- --page / // test/scripts/screenshots.test.ts: from a folder of its own, not the clone
]
const consoleOutputs = runnable('console').flatMap((b) => sessions(b)
  .filter((s) => s.shown !== '' && !RUN_ELSEWHERE.some((r) => r.test(s.command)))
  .map((s) => ({ ...s, line: b.line })))

/** A port nobody listens on, or one this test holds (`# with another process on 8080`). */
async function portFor (t: Test, held: boolean): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve))
  const { port } = server.address() as { port: number }
  if (held) t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  else await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * What a console command prints, run in the clone as a terminal runs it, on a free port for 8080 and
 * the tests' Redis for the README's: until it ends, or until it has printed what the README shows
 * (a server: then Ctrl-C, SIGINT to its process group, stops it).
 */
async function consoleRun (t: Test, command: string, shown: string): Promise<string> {
  const p = await portFor(t, /# with another process on 8080/.test(command))
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
    ALOFT_CACHE_DIR: await mkdtemp(join(tmpdir(), 'aloft-readme-console-')) }
  t.teardown(() => rm(env.ALOFT_CACHE_DIR!, { recursive: true, force: true }))
  if (command.includes('REDIS_URL=')) env.ALOFT_REDIS_PREFIX = testPrefix(t, 'readme')
  const script = command.replace(/\b8080\b/g, String(p)).replace('redis://127.0.0.1:6379', redisUrl())
  // its own process group, as a terminal's job: Ctrl-C reaches every process of it; stderr as on a terminal
  const child = spawn('bash', ['-c', `exec 2>&1\n${script}`], { cwd: ROOT, env, detached: true,
    stdio: ['ignore', 'pipe', 'ignore'] })
  const ended = new Promise((resolve) => child.once('exit', resolve))
  t.teardown(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL') // whatever of the job is left
    } catch {
      // none is
    }
  })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  const running = (): boolean => child.exitCode === null && child.signalCode === null
  for (let i = 0; i < 1800 && running() && linesDiffer(shown, asShown(out, p)) !== null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const seen = asShown(out, p)
  if (running()) process.kill(-child.pid!, 'SIGINT')
  await ended
  return seen
}

t.test('every console example that shows output prints it, run in the clone', async (t) => {
  t.ok(consoleOutputs.length >= 2, `${consoleOutputs.length} console commands with output shown`)
  for (const { command, shown, line } of consoleOutputs) {
    if (/\bnpm (test|ci)\b/.test(command)) { t.fail(`README.md:${line}: this test cannot run \`${command}\``); continue }
    if (command.includes('REDIS_URL=') && process.env.REDIS_URL === undefined) {
      t.skip(`README.md:${line}: no REDIS_URL here (scripts/with-redis.mjs gives one)`, () => {})
      continue
    }
    const out = await consoleRun(t, command, shown)
    t.equal(linesDiffer(shown, out), null, `README.md:${line}: $ ${command}`, { printed: out })
  }
})

t.test('where the README says the demo\'s pressure levels start above the ground is where they start', async (t) => {
  const said = /\((\d+) m at 52° N 19° E at (\S+)\s+on the demo data/.exec(readme.replace(/\s+/g, ' '))
  if (said === null) { t.fail('the README names the height, the place and the time'); return }
  const res = await fetch(`${demo.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'X-API-Key': demo.exports.ALOFT_API_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ latitude: 52, longitude: 19, time: said[2], altitudes_m: [0], altitude_reference: 'agl' })
  })
  t.equal(res.status, 409, 'the ground is below the pressure levels there')
  const { coverage } = await res.json() as { coverage: { minimum_agl_m: number } }
  t.equal(Math.round(coverage.minimum_agl_m), Number(said[1]), 'the height it names, in whole metres')
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

/** A console block's commands: its `$` lines without the prompt or a trailing comment. */
const commands = (block: string): string[] => block.split('\n').filter((l) => l.startsWith('$ '))
  .map((l) => l.slice(2).replace(/\s+#.*$/, '').trim())

t.test('the Clients install block\'s commands are the first of clients/python/README.md\'s', async (t) => {
  // which test/clients/python-install.test.ts runs as pasted with the python3 on the PATH and with Debian's
  const client = commands(consoleBlock(await readFile(`${ROOT}clients/python/README.md`, 'utf8')))
  const ours = commands(clientInstall.code)
  t.same(client.slice(0, ours.length), ours)
})

// with Debian's python3 here: the Clients python block below runs in what it made (Debian's pandas)
pythonTest(t, `the Clients install block runs as pasted, offline, with ${DEBIAN.name}`, pythonMissing(DEBIAN),
  async (t) => {
    const { code, stderr, python: inside, work } = await installed(DEBIAN)
    t.equal(code, 0, 'exit code', { stderr: stderr.slice(-3000) })
    const { stdout } = await exec(inside, ['-c', 'import aloft; print(aloft.__version__)'], { cwd: work })
    t.match(stdout, /^\d+\.\d+\.\d+$/m, 'aloft imports in the environment it made')
  })

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
