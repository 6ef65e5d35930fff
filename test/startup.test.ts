// Start-up failures the operator can fix: one line on stderr naming the cause and what to do, an
// exit code of their own (src/cli/exit-codes.ts), never a stack trace. Through the built command
// in its own process, as `npm start` and `npm run demo` run it.
import t, { type Test } from 'tap'
import { createServer, type Server } from 'node:net'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXIT_CODES } from '../src/cli/exit-codes.js'
import { SAMPLE_DIR } from './helpers/service.js'
import { runAloft, STACK_FRAME, type CliResult } from './helpers/cli.js'

const cacheDir = await mkdtemp(join(tmpdir(), 'aloft-startup-'))
t.teardown(() => rm(cacheDir, { recursive: true, force: true }))
const BASE = { HOST: '127.0.0.1', ALOFT_SOURCE: `mirror:${SAMPLE_DIR}`, ALOFT_CACHE_DIR: cacheDir, ALOFT_WORKERS: '1' }

function oneLine (t: Test, r: CliResult, pattern: RegExp): void {
  const lines = r.stderr.trimEnd().split('\n')
  t.equal(lines.length, 1, 'one line on stderr', { stderr: r.stderr })
  t.match(lines[0], pattern)
  t.notMatch(r.stderr + r.stdout, STACK_FRAME, 'no stack trace')
}

async function holdPort (t: Test): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return (server.address() as { port: number }).port
}

t.test('a port in use: exit 3 and one line naming the address', async (t) => {
  const port = await holdPort(t)
  const r = await runAloft(['serve'], { ...BASE, PORT: String(port) }, { covered: true })
  t.equal(r.code, EXIT_CODES.port_in_use.code)
  oneLine(t, r, new RegExp(`^aloft: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`))
})

t.test('the demo on a port in use: the same exit 3 and line', async (t) => {
  const port = await holdPort(t)
  const r = await runAloft(['demo'], { PORT: String(port) })
  t.equal(r.code, EXIT_CODES.port_in_use.code)
  oneLine(t, r, /^aloft: cannot listen on 127\.0\.0\.1:\d+: the port is in use/)
})

const unprivilegedFrom = Number(await readFile('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8')
  .catch(() => '1024'))

t.test('a privileged port without privileges: exit 4 and one line', {
  skip: unprivilegedFrom <= 80 ? `anyone may listen on port 80 here (ip_unprivileged_port_start=${unprivilegedFrom})`
    : false
}, async (t) => {
  // root may listen anywhere: as root, the command runs as nobody, with a cache directory it may write
  const asRoot = process.getuid?.() === 0
  const dir = await mkdtemp(join(tmpdir(), 'aloft-startup-nobody-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await chmod(dir, 0o777)
  const env = { ...BASE, ALOFT_CACHE_DIR: dir, PORT: '80' }
  const r = await runAloft(['serve'], env, asRoot ? { as: { uid: 65534, gid: 65534 } } : {})
  t.equal(r.code, EXIT_CODES.permission_denied.code)
  oneLine(t, r, /^aloft: cannot listen on 127\.0\.0\.1:80: permission denied/)
})

t.test('a HOST that is not an address of this machine: exit 5 and one line', async (t) => {
  const r = await runAloft(['serve'], { ...BASE, HOST: '192.0.2.1', PORT: '0' }) // TEST-NET-1, never local
  t.equal(r.code, EXIT_CODES.address_unavailable.code)
  oneLine(t, r, /^aloft: cannot listen on 192\.0\.2\.1:0: HOST is not an address of this machine/)
})

t.test('a mirror directory that does not exist: exit 6 and one line naming it', async (t) => {
  const missing = join(cacheDir, 'no-such-mirror')
  const r = await runAloft(['serve'], { ...BASE, PORT: '0', ALOFT_SOURCE: `mirror:${missing}` })
  t.equal(r.code, EXIT_CODES.source_unusable.code)
  oneLine(t, r, new RegExp(`^aloft: ALOFT_SOURCE: the mirror directory ${missing} does not exist$`))
})

t.test('a mirror directory without GFS files: exit 6 and one line naming the layout', async (t) => {
  const empty = await mkdtemp(join(cacheDir, 'empty-'))
  await writeFile(join(empty, 'README.txt'), 'not a GFS file')
  const r = await runAloft(['serve'], { ...BASE, PORT: '0', ALOFT_SOURCE: `mirror:${empty}` })
  t.equal(r.code, EXIT_CODES.source_unusable.code)
  oneLine(t, r, /^aloft: ALOFT_SOURCE: the mirror directory .+ holds no GFS files in the bucket layout \(gfs\.YYYYMMDD/)
})

t.test('every exit code is distinct', async (t) => {
  const codes = Object.values(EXIT_CODES).map((e) => e.code)
  t.equal(new Set(codes).size, codes.length)
})
