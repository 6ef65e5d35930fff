// /readyz of the built service started as `npm start` starts it, with its data source down: not
// ready (503) while the source cannot be listed, each check's state in the body. The source is
// really unreachable (a closed port) or really failing (the NOAA stand-in answering 503).
import t, { type Test } from 'tap'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Health } from '../../src/contract/schemas.js'
import { assertSchema } from '../helpers/service.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { freePort } from '../helpers/redis.js'
import { spawnAloft } from '../helpers/cli.js'

const cacheDir = await mkdtemp(join(tmpdir(), 'aloft-readiness-'))
t.teardown(() => rm(cacheDir, { recursive: true, force: true }))

/** `aloft serve` with this source; resolves with its URL once it listens. */
async function serve (t: Test, source: string): Promise<string> {
  const child = spawnAloft(['serve'], { PORT: '0', HOST: '127.0.0.1', ALOFT_SOURCE: source, ALOFT_WORKERS: '1',
    ALOFT_CACHE_DIR: cacheDir, ALOFT_UPSTREAM_TIMEOUT_MS: '1000',
    // its stop drains: a short keep-alive, or the test's own idle connections hold that up 4 s
    ALOFT_KEEP_ALIVE_TIMEOUT_MS: '500' })
  t.teardown(async () => { child.kill('SIGTERM'); await once(child, 'exit') })
  let out = ''
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  return await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d
      const line = out.split('\n').find((l) => l.includes('"aloft listening"'))
      if (line !== undefined) resolve(JSON.parse(line).url)
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)))
  })
}

/**
 * /readyz once the worker threads run (they start in the background, seconds on a loaded
 * machine), so the answer is about the source.
 */
async function ready (url: string): Promise<{ status: number, body: Health, retryAfter: string | null }> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const res = await fetch(`${url}/readyz`)
    const body = await res.json() as Health
    if (body.checks?.worker_pool === 'ok' || Date.now() > deadline) {
      return { status: res.status, body, retryAfter: res.headers.get('retry-after') }
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

t.test('an upstream nobody answers on: 503, the source unavailable, the other checks ok', async (t) => {
  const closed = await freePort()
  const url = await serve(t, `filter:http://127.0.0.1:${closed}/cgi-bin/filter_gfs_0p25.pl`)
  const r = await ready(url)
  t.equal(r.status, 503)
  assertSchema(t, Health, r.body)
  t.same(r.body.checks, { account_store: 'ok', source: 'unavailable', cache_dir: 'ok', worker_pool: 'ok' })
  t.match(r.body.reasons?.source, /^the source cannot be listed: the connection failed/)
  t.notMatch(JSON.stringify(r.body), String(closed), 'no upstream address in the public body')
  t.match(r.retryAfter, /^[1-9]\d*$/)
})

t.test('an upstream answering 503 to listings: not ready', async (t) => {
  const up = await startSampleUpstream(t)
  up.server.fail({ match: '/pub/data/nccf/com/gfs/prod/', mode: 503 })
  const url = await serve(t, `filter:${up.server.filterUrl}`)
  const r = await ready(url)
  t.equal(r.status, 503)
  t.equal(r.body.checks?.source, 'unavailable')
  t.match(r.body.reasons?.source, /upstream answered 503/)
})

t.test('the same upstream answering: ready, every check ok', async (t) => {
  const up = await startSampleUpstream(t)
  const url = await serve(t, `filter:${up.server.filterUrl}`)
  const r = await ready(url)
  t.equal(r.status, 200)
  t.same(r.body, { status: 'ok', checks: { account_store: 'ok', source: 'ok', cache_dir: 'ok', worker_pool: 'ok' } })
})
