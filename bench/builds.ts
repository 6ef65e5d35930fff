// bench/builds: this tree's build against another tree's, side by side in one run — the way to say a
// change made a hot path no slower. Make the other tree a worktree of the commit before the change
// (`git worktree add ../aloft-before <commit> && cd ../aloft-before && npm ci`; `npm ci` builds it).
// Each side is `aloft serve` from its own dist/ on the bundled sample (memory store; Redis with
// --redis), the same wrk load in rounds alternated (this, other; other, this; …), so a drift of the
// machine falls on both alike; beside each rate the server's CPU per request (every thread, /proc),
// which other work on the machine disturbs far less than a rate. Writes bench/results/builds[-redis][-Nprocesses].json.
//   node dist/bench/builds.js --against ../aloft-before [--seconds 8] [--pairs 3] [--connections 32] [--redis]
//     [--processes 1]
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { int, LOAD_ENV, machine, ms, numberArg, SAMPLE, table, track, stop, writeResult } from './lib/index.js'
import { profileBody } from './lib/bodies.js'
import { closedLoop } from './lib/wrk.js'
import { freePort, REPO, waitFor } from './lib/processes.js'
import { treeCpuUs } from './lib/process-cpu.js'

const SECONDS = numberArg('seconds', 8)
const PAIRS = numberArg('pairs', 3)
const CONNECTIONS = numberArg('connections', 32)
const PROCESSES = numberArg('processes', 1)
const REDIS = process.argv.includes('--redis')
const againstAt = process.argv.indexOf('--against')
const AGAINST = againstAt > 0 ? resolve(process.argv[againstAt + 1]) : null
const ADMIN = 'bench-builds-admin-token-0123456789'

if (AGAINST === null || !existsSync(join(AGAINST, 'dist/src/cli/main.js'))) {
  console.error('usage: node dist/bench/builds.js --against <another built tree of aloft> [--seconds 8] [--pairs 3] ' +
    '[--connections 32] [--redis] [--processes 1]')
  process.exit(2)
}

interface Side { name: string, tree: string, url: string, key: string, child: ChildProcess }
interface Run { rps: number, cpuUs: number, errors: number }

const dir = await mkdtemp(join(tmpdir(), 'aloft-bench-builds-'))
const redisPort = await freePort()
const redis = REDIS
  ? track(spawn('redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }))
  : null

async function start (name: string, tree: string): Promise<Side> {
  const port = await freePort()
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ALOFT_') &&
    !['REDIS_URL', 'PORT', 'HOST'].includes(k)))
  const child = track(spawn(process.execPath, [join(tree, 'dist/src/cli/main.js'), 'serve'], {
    env: { ...clean, ...LOAD_ENV, PORT: String(port), ALOFT_SOURCE: `mirror:${SAMPLE}`,
      ALOFT_CACHE_DIR: join(dir, name), ALOFT_ADMIN_TOKEN: ADMIN, ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT: '100000',
      ALOFT_PROCESSES: String(PROCESSES),
      ...(redis !== null ? { REDIS_URL: `redis://127.0.0.1:${redisPort}`, ALOFT_REDIS_PREFIX: `builds-${name}:` } : {}) },
    stdio: ['ignore', 'inherit', 'inherit']
  }))
  const url = `http://127.0.0.1:${port}`
  await waitFor(`${name} ready`, async () => (await fetch(`${url}/readyz`)).ok, 60_000)
  const made = await fetch(`${url}/v1/admin/accounts`, { method: 'POST', body: JSON.stringify({ name: 'bench' }),
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' } })
  const { key } = await made.json() as { key: { key: string } }
  return { name, tree, url, key: key.key, child }
}

async function hot (side: Side): Promise<Run> {
  const target = { url: `${side.url}/v1/atmosphere/profile`, method: 'POST' as const, body: profileBody(),
    headers: { 'x-api-key': side.key, 'content-type': 'application/json' } }
  await closedLoop(target, { connections: CONNECTIONS, seconds: 2, warmupSeconds: 0 })
  const cpu0 = await treeCpuUs(side.child.pid!)
  const r = await closedLoop(target, { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: 0 })
  const cpuUs = await treeCpuUs(side.child.pid!) - cpu0
  return { rps: r.rps, cpuUs: cpuUs / r.requests, errors: r.errors }
}

const sides: Side[] = []
try {
  sides.push(await start('this', REPO), await start('other', AGAINST))
  const runs: Run[][] = [[], []]
  for (let p = 0; p < PAIRS; p++) {
    for (const k of p % 2 === 0 ? [0, 1] : [1, 0]) runs[k].push(await hot(sides[k]))
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rows = sides.map((s, k) => [`${s.name} (${s.tree})`, runs[k].map((r) => int(r.rps)).join(' · '),
    runs[k].map((r) => ms(r.cpuUs, 1)).join(' · '), ms(median(runs[k].map((r) => r.cpuUs)), 1),
    String(runs[k].reduce((n, r) => n + r.errors, 0))])
  console.log(table(['build', 'hot profile req/s (each round)', 'server CPU µs a request', 'median CPU µs', 'errors'],
    rows))
  const ratio = median(runs[0].map((r) => r.cpuUs)) / median(runs[1].map((r) => r.cpuUs))
  console.log(`\nthis ÷ other, median CPU a request: ${ms(ratio, 3)}; ${PAIRS} alternated pairs of ${SECONDS} s ` +
    `(after 2 s of warm-up), wrk -t1 -c${CONNECTIONS}, ${REDIS ? 'Redis' : 'memory store'}, ${PROCESSES} process(es)`)
  const name = `builds${REDIS ? '-redis' : ''}${PROCESSES > 1 ? `-${PROCESSES}processes` : ''}`
  console.log(`written ${writeResult(name, { machine: machine(), against: AGAINST, seconds: SECONDS, pairs: PAIRS,
    connections: CONNECTIONS, redis: REDIS, processes: PROCESSES, runs, ratio })}`)
} finally {
  for (const s of sides) await stop(s.child, 15_000)
  if (redis !== null) await stop(redis)
  await rm(dir, { recursive: true, force: true })
}
