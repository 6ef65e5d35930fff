// The built service, started the way `npm start` does (`node dist/src/cli/main.js serve`):
// proves the compiled entry point, configuration errors (exit 2) and graceful shutdown (exit 0).
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { ROOT } from '../helpers/paths.js'
import { startServe } from '../helpers/serve-process.js'

const root = ROOT
const main = 'dist/src/cli/main.js'
const start = startServe

t.test('the built server answers, then stops on SIGTERM with exit code 0', async (t) => {
  const svc = start({ ALOFT_ADMIN_TOKEN: 'built-server-admin-token' })
  t.teardown(() => { svc.child.kill('SIGKILL') })
  const url = await svc.listening
  const health = await fetch(`${url}/healthz`)
  t.equal(health.status, 200)
  const created = await fetch(`${url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: 'Bearer built-server-admin-token', 'content-type': 'application/json' },
    body: '{"name":"smoke"}'
  })
  t.equal(created.status, 201)
  const { key } = await created.json() as { key: { key: string } }
  const usage = await fetch(`${url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key.key } })
  t.equal(usage.status, 200)
  svc.child.kill('SIGTERM')
  const [code] = await svc.exited
  t.equal(code, 0, 'graceful exit')
  t.notMatch(svc.output().stdout, key.key, 'the key never reaches the logs')
})

t.test('SIGTERM lets an in-flight request finish', async (t) => {
  const svc = start({ ALOFT_ADMIN_TOKEN: 'built-server-admin-token' })
  t.teardown(() => { svc.child.kill('SIGKILL') })
  const url = await svc.listening
  const created = await fetch(`${url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: 'Bearer built-server-admin-token', 'content-type': 'application/json' },
    body: '{"name":"slow"}'
  })
  const { key } = await created.json() as { key: { key: string } }
  // A body sent slowly keeps the request in flight while the signal arrives.
  let push: (chunk: Uint8Array | null) => void = () => {}
  const stream = new ReadableStream({ start (c) { push = (chunk) => chunk === null ? c.close() : c.enqueue(chunk) } })
  const pending = fetch(`${url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key.key }, body: stream, duplex: 'half'
  } as RequestInit)
  push(new TextEncoder().encode('{"latitude":'))
  await new Promise((r) => setTimeout(r, 100))
  svc.child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 100))
  push(new TextEncoder().encode('1}'))
  push(null)
  const res = await pending
  t.equal(res.status, 400, 'the in-flight request was read to its end and answered')
  const [code] = await svc.exited
  t.equal(code, 0)
})

t.test('a bad configuration value stops the process with exit code 2 and says why', async (t) => {
  const svc = start({ ALOFT_RATE_BURST: 'many' })
  svc.listening.catch(() => {}) // it never listens
  const [code] = await svc.exited
  t.equal(code, 2)
  t.match(svc.output().stderr, /ALOFT_RATE_BURST="many" is invalid/)
})

t.test('a malformed REDIS_URL stops the process with exit code 2 naming it, not exit 1 at start-up', async (t) => {
  for (const url of ['redis://127.0.0.1:notaport', 'redis://127.0.0.1:99999', 'redis://[::1']) {
    const svc = start({ REDIS_URL: url })
    svc.listening.catch(() => {}) // it never listens
    const [code] = await svc.exited
    t.equal(code, 2, url)
    t.match(svc.output().stderr, /REDIS_URL is invalid/, url)
    t.notMatch(svc.output().stderr, /unexpected failure/, url)
  }
})

t.test('an unknown command exits 2 with usage', async (t) => {
  const child = spawn(process.execPath, [main, 'fly'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  const [code] = await once(child, 'exit')
  t.equal(code, 2)
  t.match(stderr, /unknown command 'fly'/)
  t.match(stderr, /serve/)
})

t.test('the CLI\'s own ALOFT_URL and ALOFT_API_KEY in the environment do not stop the service', async (t) => {
  const svc = start({ ALOFT_URL: 'http://127.0.0.1:8080', ALOFT_API_KEY: 'aloft_some-key-of-the-shell' })
  t.teardown(() => { svc.child.kill('SIGKILL') })
  const url = await svc.listening
  t.equal((await fetch(`${url}/healthz`)).status, 200)
  svc.child.kill('SIGTERM')
  t.equal((await svc.exited)[0], 0)
})

t.test('a tile template the explorer cannot use stops the process with exit code 2 and says why', async (t) => {
  const svc = start({ ALOFT_MAP_TILES_URL: 'ftp://tiles.example.org/{z}/{x}/{y}.png' })
  svc.listening.catch(() => {}) // it never listens
  const [code] = await svc.exited
  t.equal(code, 2)
  t.match(svc.output().stderr, /ALOFT_MAP_TILES_URL="ftp:\/\/tiles\.example\.org\/\{z\}\/\{x\}\/\{y\}\.png" is invalid: .*not http\(s\)/)
})
