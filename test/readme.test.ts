// The README as a newcomer follows it: `npm run demo` (the built `aloft demo`), its two export
// lines pasted into a shell, then every curl command of the README run as written by `sh`
// against it (only the address changes: the demo listens on a free port here), and the valid
// times and exit codes the README lists are those the code has.
import t, { type Test } from 'tap'
import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { EXIT_CODES } from '../src/cli/exit-codes.js'
import { ROOT, spawnAloft } from './helpers/cli.js'

const readme = await readFile(`${ROOT}README.md`, 'utf8')
const hasCurl = ((): boolean => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

/** Every shell command of the README's ```sh blocks, continuation lines and quoted newlines joined. */
function shellCommands (text: string): string[] {
  const commands: string[] = []
  for (const block of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    let current = ''
    for (const line of block[1].split('\n')) {
      if (current === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue
      current += (current === '' ? '' : '\n') + line
      // quotes outside double-quoted strings and trailing comments must pair up to end a command
      const quotes = (current.replace(/"[^"']*"/g, '').replace(/\s#\s.*$/gm, '').match(/'/g) ?? []).length
      if (!current.endsWith('\\') && quotes % 2 === 0) {
        commands.push(current)
        current = ''
      }
    }
  }
  return commands
}

async function startDemo (t: Test): Promise<{ url: string, exports: Record<string, string>, stdout: string }> {
  const child = spawnAloft(['demo'], { PORT: '0' })
  t.teardown(async () => { child.kill('SIGINT'); await once(child, 'exit') })
  let stdout = ''
  child.stdout.on('data', (d) => { stdout += d })
  for (let i = 0; i < 600 && !stdout.includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 50))
  const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? ''
  const exports = Object.fromEntries([...stdout.matchAll(/^\s+export (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]))
  return { url, exports, stdout }
}

t.test('every curl command of the README answers 2xx against the demo, as written', { skip: !hasCurl && 'no curl' },
  async (t) => {
    const demo = await startDemo(t)
    t.same(Object.keys(demo.exports).sort(), ['ALOFT_ADMIN_TOKEN', 'KEY'], 'the demo prints both export lines')
    const curls = shellCommands(readme).filter((c) => c.startsWith('curl '))
    t.ok(curls.some((c) => c.includes('/v1/admin/accounts')), 'the admin example is among them')
    let createdKeyId = ''
    for (const written of curls) {
      // the one placeholder a reader fills in: a key id from the answer above it
      const command = written.replaceAll('localhost:8080', demo.url.replace('http://', ''))
        .replaceAll('key_…', createdKeyId)
      const out = execFileSync('sh', ['-c', `curl () { command curl -w '\\n%{http_code}' "$@"; }\n${command}`], {
        env: { PATH: process.env.PATH ?? '', ...demo.exports }, encoding: 'utf8'
      })
      const status = Number(out.slice(out.lastIndexOf('\n') + 1))
      t.ok(status >= 200 && status < 300, `${status}: ${written.split('\n')[0].slice(0, 100)}`, { out })
      if (written.includes('-X POST localhost:8080/v1/keys ')) createdKeyId = JSON.parse(out.split('\n')[0]).id
    }
  })

t.test('the README lists the valid times the demo prints', async (t) => {
  const demo = await startDemo(t)
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
