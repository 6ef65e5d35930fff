// bench/server: the process under load. aloft (configured by the ALOFT_* environment, in-memory
// store, an account made at start) and, in the same process, a bare polka app answering
// `{ "ok": true }` — the ceiling for this process on this machine. Prints one JSON line
// `{ aloftUrl, bareUrl, key, pid }` when both listen; SIGTERM/SIGINT stops both.
//   node dist/bench/children/server.js   (started by the benchmarks through bench/lib/server-child.ts startServer)
// The bare app also answers GET /memory with process.memoryUsage() and the open file descriptors
// (the soak's RSS and fd count) and, with
// BENCH_SIZED_BODY set, GET /sized (see below).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { existsSync, readdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'node:inspector/promises'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import polka from 'polka'
import { loadConfig } from '../../src/config/index.js'
import { startService } from '../../src/service.js'
import type { AtmosphereRequest } from '../../src/contract/schemas.js'

const OK = JSON.stringify({ ok: true })

const cacheDir = process.env.ALOFT_CACHE_DIR ?? await mkdtemp(join(tmpdir(), 'aloft-bench-cache-'))
const ownCacheDir = process.env.ALOFT_CACHE_DIR === undefined
const config = loadConfig({ ...process.env, ALOFT_CACHE_DIR: cacheDir })
const service = await startService(config)
const account = await service.store.createAccount('bench')
const { secret } = await service.store.createKey(account.id, 'bench')

// BENCH_SIZED_BODY (a profile request body): also serve that profile's response bytes, computed
// once here, on the bare app's GET /sized — polka with aloft's payload but none of its work.
const sizedRequest = process.env.BENCH_SIZED_BODY
const sized = sizedRequest === undefined || service.profiles === undefined
  ? null
  : JSON.stringify(await service.profiles.profile(JSON.parse(sizedRequest) as AtmosphereRequest, account.id))

const loopDelay = monitorEventLoopDelay({ resolution: 1 })
loopDelay.enable()
// garbage collection pauses of the main thread over the same window: a stall's likeliest cause
let gc = { count: 0, totalMs: 0, maxMs: 0, over2ms: 0 }
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++
    gc.totalMs += e.duration
    gc.maxMs = Math.max(gc.maxMs, e.duration)
    if (e.duration > 2) gc.over2ms++
  }
}).observe({ entryTypes: ['gc'] })

const profiler = new Session()
profiler.connect()

const bare = polka()
  .get('/', (_req, res) => {
    res.setHeader('Content-Type', 'application/json')
    res.setHeader('Content-Length', Buffer.byteLength(OK))
    res.end(OK)
  })
  // the floor of a JSON POST: read the body, parse it, answer
  .post('/parse', (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
      const body = parsed === null ? '{"ok":false}' : OK
      res.setHeader('Content-Type', 'application/json')
      res.setHeader('Content-Length', Buffer.byteLength(body))
      res.end(body)
    })
  })
  // a CPU profile of this process (the V8 sampler, as --cpu-prof takes it) over a window the
  // benchmark chooses: started after the warm-up, stopped after the load (bench/lib/breakdown.ts)
  .post('/cpu-profile/start', async (_req, res) => {
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 })
    await profiler.post('Profiler.start')
    res.end('{}')
  })
  .post('/cpu-profile/stop', async (_req, res) => {
    const { profile } = await profiler.post('Profiler.stop')
    res.setHeader('Content-Type', 'application/json')
    res.end(JSON.stringify(profile))
  })
  .get('/sized', (_req, res) => {
    if (sized === null) { res.statusCode = 404; res.end(); return }
    res.setHeader('Content-Type', 'application/json')
    res.setHeader('Content-Length', Buffer.byteLength(sized))
    res.end(sized)
  })
  // how late this process's event loop ran since the last call (then forgotten): a server stall
  // shows here, where a load generator's own lag does not
  .get('/loop-delay', (_req, res) => {
    const ms = (ns: number): number => Math.round(ns / 1e3) / 1e3
    const body = JSON.stringify({ p50_ms: ms(loopDelay.percentile(50)), p99_ms: ms(loopDelay.percentile(99)),
      max_ms: ms(loopDelay.max), gc: { count: gc.count, total_ms: Math.round(gc.totalMs), max_ms: ms(gc.maxMs * 1e6),
        over_2ms: gc.over2ms } })
    loopDelay.reset()
    gc = { count: 0, totalMs: 0, maxMs: 0, over2ms: 0 }
    res.setHeader('Content-Type', 'application/json')
    res.end(body)
  })
  // this process's CPU time so far (µs, every thread): a benchmark divides its growth over a window
  // by the requests answered in it, a figure contention from other processes disturbs less than req/s
  .get('/cpu', (_req, res) => {
    const { user, system } = process.cpuUsage()
    res.setHeader('Content-Type', 'application/json')
    res.end(JSON.stringify({ user_us: user, system_us: system }))
  })
  .get('/memory', (_req, res) => {
    // open file descriptors too (Linux): a leak of sockets or files shows as growth
    const fds = existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : null
    const body = JSON.stringify({ ...process.memoryUsage(), fds })
    res.setHeader('Content-Type', 'application/json')
    res.end(body)
  })
// the same Node server options as aloft's, so the two differ only in what the route does
// polka's `next` is optional at run time (as in src/http/request-target.ts)
const dispatch = bare.handler as unknown as (req: IncomingMessage, res: ServerResponse) => void
const bareServer = createServer({ keepAliveTimeout: 5000 }, (req, res) => { dispatch(req, res) })
await new Promise<void>((resolve) => bareServer.listen(0, '127.0.0.1', () => resolve()))
const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`

let stopping = false
async function shutdown (): Promise<void> {
  if (stopping) return
  stopping = true
  bareServer.closeAllConnections()
  bareServer.close()
  await service.close()
  if (ownCacheDir) await rm(cacheDir, { recursive: true, force: true })
  process.exit(0)
}
process.on('SIGTERM', () => { void shutdown() })
process.on('SIGINT', () => { void shutdown() })

console.log(JSON.stringify({ aloftUrl: service.url, bareUrl, key: secret, pid: process.pid }))
