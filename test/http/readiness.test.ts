// /readyz checks every dependency an answer needs — account store, source listing, raw cache
// directory, worker pool — and names each one's state; each failure here is caused for real.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Health } from '../../src/contract/schemas.js'
import { assertSchema, startTestService, untilReady, type TestService } from '../helpers/service.js'
import { buildSampleTree, startSampleUpstream } from '../helpers/upstream.js'
import { READY_WAIT_MS } from '../../src/http/readiness.js'

async function ready (url: string, until = false): Promise<{ status: number, body: Health }> {
  const res = until ? await untilReady(url) : await fetch(`${url}/readyz`)
  const body = await res.json() as Health
  return { status: res.status, body }
}

/** Resolves once the service's worker threads run tasks (they start in the background). */
async function poolRuns (svc: TestService): Promise<void> {
  await svc.field!.pool.run('ping', null)
}

t.test('every dependency usable: 200 and every check ok', async (t) => {
  const svc = await startTestService(t)
  const r = await ready(svc.url, true)
  t.equal(r.status, 200)
  assertSchema(t, Health, r.body)
  t.same(r.body, { status: 'ok', checks: { account_store: 'ok', source: 'ok', cache_dir: 'ok', worker_pool: 'ok' } })
})

t.test('a cache directory that cannot be written: 503 naming cache_dir', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'aloft-ready-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const notADirectory = join(dir, 'a-file')
  await writeFile(notADirectory, 'in the way')
  const svc = await startTestService(t, { env: { ALOFT_CACHE_DIR: notADirectory } })
  await poolRuns(svc)
  const r = await ready(svc.url)
  t.equal(r.status, 503)
  assertSchema(t, Health, r.body)
  t.equal(r.body.status, 'unavailable')
  t.same(r.body.checks, { account_store: 'ok', source: 'ok', cache_dir: 'unavailable', worker_pool: 'ok' })
  t.match(r.body.reasons?.cache_dir, /^the cache directory cannot be written: E[A-Z]+$/)
})

t.test('a worker pool whose queue is full: 503 naming worker_pool', async (t) => {
  const svc = await startTestService(t)
  t.equal((await ready(svc.url, true)).status, 200, 'ready first')
  // keep the pool's queue full: each task that ends is replaced before anything else runs (a
  // refused one is not: it is refused because the queue is full)
  const junk = new Uint8Array(new SharedArrayBuffer(64))
  let pumping = true
  const pump = (): void => {
    if (pumping) svc.field!.pool.decode({ bytes: junk }).then(pump, () => {})
  }
  for (let k = 0; k < 400; k++) pump()
  const r = await ready(svc.url)
  pumping = false
  t.equal(r.status, 503)
  t.same(r.body.checks, { account_store: 'ok', source: 'ok', cache_dir: 'ok', worker_pool: 'unavailable' })
  t.equal(r.body.reasons?.worker_pool, 'the worker pool\'s queue is full')
})

t.test('a mirror emptied after start: 503, the source holds no runs', async (t) => {
  const root = await buildSampleTree(t)
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `mirror:${root}` } })
  await poolRuns(svc)
  await rm(root, { recursive: true, force: true })
  const r = await ready(svc.url)
  t.equal(r.status, 503)
  t.equal(r.body.checks?.source, 'unavailable')
  t.equal(r.body.reasons?.source, 'the source holds no GFS runs')
})

t.test('a hanging upstream: the probe still answers within its wait, not ready', async (t) => {
  const up = await startSampleUpstream(t)
  // the listing hangs far longer than the probe waits: an answer before half of it is the probe's own wait
  const HANG_MS = 30 * READY_WAIT_MS
  up.server.fail({ match: '/pub/data/nccf/com/gfs/prod/', mode: { slowMs: HANG_MS } })
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${up.server.filterUrl}` } })
  const started = Date.now()
  const r = await ready(svc.url)
  const elapsed = Date.now() - started
  t.ok(elapsed >= READY_WAIT_MS && elapsed < HANG_MS / 2, `answered in ${elapsed} ms, after its own wait`)
  t.equal(r.status, 503)
  t.equal(r.body.reasons?.source, `no listing of the source within ${READY_WAIT_MS} ms yet`)
})

t.test('probes in a row list the upstream once (listings share the upstream limiter)', async (t) => {
  const up = await startSampleUpstream(t)
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${up.server.filterUrl}` } })
  const listings = (): number => up.server.requests.filter((r) => r.url === '/pub/data/nccf/com/gfs/prod/').length
  const before = listings()
  t.equal((await ready(svc.url, true)).status, 200)
  for (let k = 0; k < 3; k++) t.equal((await ready(svc.url)).status, 200)
  t.equal(listings() - before, 1)
})

t.test('an instance without a data path is not ready', async (t) => {
  const svc = await startTestService(t, { dataPath: false })
  const r = await ready(svc.url)
  t.equal(r.status, 503)
  t.same(r.body.checks, { account_store: 'ok', source: 'unavailable', cache_dir: 'unavailable',
    worker_pool: 'unavailable' })
})
