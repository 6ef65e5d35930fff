// `npm run demo` (aloft demo): the built service on the bundled sample prints a key, an operator
// token and a curl command that answers a real profile, and stops cleanly.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { assertSchema } from '../helpers/service.js'
import { AtmosphereResponse } from '../../src/contract/schemas.js'
import { ROOT } from '../helpers/paths.js'

const root = ROOT
// ALOFT_KEEP_ALIVE_TIMEOUT_MS below: a stop drains, and this test's own idle connections would hold it up 4 s

t.test('the demo prints a working key, operator token and curl command, then stops on SIGINT', async (t) => {
  const child = spawn(process.execPath, ['dist/src/cli/main.js', 'demo'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', REDIS_URL: 'redis://127.0.0.1:1', ALOFT_KEEP_ALIVE_TIMEOUT_MS: '500' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  let stdout = ''
  child.stdout.on('data', (d) => { stdout += d })
  const exited = once(child, 'exit')
  for (let i = 0; i < 1800 && !stdout.includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 50))
  const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1]
  const key = /(aloft_[A-Za-z0-9_-]{43})/.exec(stdout)?.[1]
  const body = /-d '(\{.*\})'/.exec(stdout)?.[1]
  t.ok(url !== undefined && key !== undefined && body !== undefined, 'URL, key and body are printed')
  t.match(stdout, `curl -s -X POST ${url}/v1/atmosphere/profile`)
  const res = await fetch(`${url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key!, 'content-type': 'application/json' }, body: body!
  })
  t.equal(res.status, 200, 'the printed command answers (REDIS_URL is ignored: the demo is the embedded setup)')
  const profile = await res.json() as AtmosphereResponse
  assertSchema(t, AtmosphereResponse, profile)
  t.equal(profile.provenance.model_run_at, '2020-08-04T12:00:00Z')
  const token = /export ALOFT_ADMIN_TOKEN=(\S+)/.exec(stdout)?.[1]
  t.match(stdout, `export ALOFT_API_KEY=${key}`)
  t.match(stdout, `export ALOFT_URL=${url}\n`, 'the address the README\'s examples use')
  const admin = await fetch(`${url}/v1/admin/accounts`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"name":"balloon team"}'
  })
  t.equal(admin.status, 201, 'the printed operator token opens the admin route')
  const base = /base URL (http:\/\/\S+\/tawhiri) \(no key: public mode\)/.exec(stdout)?.[1]
  const tawhiri = await fetch(`${base}?launch_latitude=52.2297&launch_longitude=21.0122&` +
    'launch_datetime=2020-08-04T12:00:00Z&ascent_rate=5&burst_altitude=30000&descent_rate=5')
  t.equal(tawhiri.status, 200, 'the printed Tawhiri base URL answers a client without a key')
  await tawhiri.arrayBuffer()
  child.kill('SIGINT')
  const [code] = await exited
  t.equal(code, 0)
})

t.test('the demo keeps an operator token of the caller\'s', async (t) => {
  const child = spawn(process.execPath, ['dist/src/cli/main.js', 'demo'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', ALOFT_ADMIN_TOKEN: 'my-own-operator-token',
      ALOFT_KEEP_ALIVE_TIMEOUT_MS: '500' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  let stdout = ''
  child.stdout.on('data', (d) => { stdout += d })
  for (let i = 0; i < 1800 && !stdout.includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 50))
  t.match(stdout, /^ {4}export ALOFT_ADMIN_TOKEN=my-own-operator-token$/m)
})
