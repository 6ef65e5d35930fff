// bench/samples-phases: where one bulk samples request's time goes, phase by phase, wall and CPU
// (the main thread's own, from /proc/self/task/<pid>/schedstat, and every other thread's: the pool
// workers, GC helpers, libuv). The service runs in this process, its engine's steps wrapped with
// timers; the client (node:http as bench/samples, or fetch with --fetch) runs in a child process so
// it takes none of this process's CPU.
//   npx tsc -p tsconfig.json && node dist/bench/samples-phases.js [--points 100000] [--rounds 7] [--json] [--fetch]
import { fork } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { postWith } from './lib/http-post.js'
import { ms, numberArg, table } from './lib/index.js'
import { arrowBody, jsonBody, randomPoints, START, useSampleEnvironment } from './lib/sample-points.js'

const ARROW = 'application/vnd.apache.arrow.stream'

// ---- the client child: posts the body `rounds` times, one at a time, and reports its own timings ----

if (process.argv[2] === '--client') {
  const [, , , url, key, file, kind, rounds, client] = process.argv
  const body = await readFile(file)
  const arrow = kind === 'arrow'
  const send = async (): Promise<Record<string, number>> => {
    const t0 = performance.timeOrigin + performance.now()
    const target = `${url}/v1/atmosphere/samples${arrow ? '?altitude_reference=agl' : ''}`
    const headers = { 'x-api-key': key, 'content-type': arrow ? ARROW : 'application/json',
      accept: arrow ? ARROW : 'application/json' }
    const res = await postWith(client === 'fetch' ? 'fetch' : 'http', target, headers, body)
    const done = performance.timeOrigin + performance.now()
    if (res.status !== 200) throw new Error(`status ${res.status}`)
    return { t0, headers: performance.timeOrigin + res.headersAt, done, bytes: res.bytes.length }
  }
  const out = []
  for (let k = 0; k < Number(rounds); k++) out.push(await send())
  process.send?.(out)
  process.exit(0)
}

// ---- the server: this process ----

const POINTS = numberArg('points', 100_000)
const ROUNDS = numberArg('rounds', 7)
const JSON_TOO = process.argv.includes('--json')
const CLIENT = process.argv.includes('--fetch') ? 'fetch' : 'http' // the client reads with node:http unless --fetch

const cacheDir = await useSampleEnvironment(POINTS, 'aloft-phases-')
const { loadConfig } = await import('../src/config/index.js')
const { startService } = await import('../src/service.js')
const { SamplesEngine } = await import('../src/samples/engine.js')
const { ArrowSamplesWriter } = await (await import('../src/samples/index.js')).loadArrow()
const service = await startService(loadConfig(process.env))
const account = await service.store.createAccount('phases')
const { secret } = await service.store.createKey(account.id, 'phases')

/** This thread's CPU time in ns (schedstat's first field). */
const mainStat = `/proc/self/task/${process.pid}/schedstat`
const mainNs = (): number => Number(readFileSync(mainStat, 'utf8').split(' ')[0])

interface Mark { label: string, wall: number, main: number, all: number }
let marks: Mark[] = []
const mark = (label: string): void => {
  const { user, system } = process.cpuUsage()
  const wall = performance.timeOrigin + performance.now()
  marks.push({ label, wall, main: mainNs() / 1e6, all: (user + system) / 1e3 })
}

// wrap the engine's steps and the Arrow writer's, and the pool's runs (first dispatch, last return)
const wrap = <T extends object>(proto: T, name: keyof T, before: string, after: string): void => {
  const original = proto[name] as (...args: unknown[]) => unknown
  ;(proto as Record<string, unknown>)[name as string] = function (this: unknown, ...args: unknown[]) {
    mark(before)
    const r = original.apply(this, args)
    if (r instanceof Promise) return r.then((v) => { mark(after); return v })
    mark(after)
    return r
  }
}
wrap(SamplesEngine.prototype, 'plan', 'plan', 'plan end')
wrap(SamplesEngine.prototype, 'load', 'load', 'load end')
wrap(SamplesEngine.prototype, 'compute', 'compute', 'compute end')
wrap(SamplesEngine.prototype, 'json', 'format JSON', 'format JSON end')
wrap(ArrowSamplesWriter.prototype, 'writeSlice', 'encode slice', 'encode slice end')
const pool = service.field!.pool
const run = pool.run
pool.run = async <R>(name: Parameters<typeof run>[0], task: unknown): Promise<R> => {
  mark(`pool ${name} sent`)
  const r = await run<R>(name, task)
  mark(`pool ${name} back`)
  return r
}
service.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
  if (!(req.url ?? '').startsWith('/v1/atmosphere/samples')) return
  marks = []
  mark('request headers in')
  req.once('end', () => mark('body in'))
  let writes = 0
  const write = res.write.bind(res) as (...a: unknown[]) => boolean
  res.write = ((...a: unknown[]) => { if (writes++ === 0) mark('first write'); return write(...a) }) as typeof res.write
  res.once('finish', () => { mark('response handed to the socket'); finished.push(marks) })
})
const finished: Mark[][] = []

async function clientRun (body: Uint8Array | string, kind: 'arrow' | 'json'): Promise<Array<Record<string, number>>> {
  const file = join(cacheDir, `body.${kind}`)
  await writeFile(file, body)
  const args = ['--client', service.url, secret, file, kind, String(ROUNDS), CLIENT]
  const child = fork(fileURLToPath(import.meta.url), args)
  return await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as Array<Record<string, number>>))
    child.once('exit', (code) => { if (code !== 0) reject(new Error(`client exited ${code}`)) })
  })
}

/**
 * Phases of one request: between consecutive marks, merging repeated labels (each pool run,
 * each slice) into spans from the first to the last; the client's own before and after.
 */
function phases (m: Mark[], client: Record<string, number>): Array<[string, number, number, number]> {
  const rows: Array<[string, number, number, number]> = []
  const span = (label: string, from: Mark, to: Mark): void => {
    rows.push([label, to.wall - from.wall, to.main - from.main, (to.all - from.all) - (to.main - from.main)])
  }
  rows.push(['client: send start → server has headers', m[0].wall - client.t0, NaN, NaN])
  for (let k = 1; k < m.length; k++) span(`${m[k - 1].label} → ${m[k].label}`, m[k - 1], m[k])
  rows.push(['server finish → client has the last byte', client.done - m[m.length - 1].wall, NaN, NaN])
  rows.push(['total (client)', client.done - client.t0, NaN, NaN])
  rows.push(['total (server)', m[m.length - 1].wall - m[0].wall, m[m.length - 1].main - m[0].main,
    (m[m.length - 1].all - m[0].all) - (m[m.length - 1].main - m[0].main)])
  return rows
}

/** Median, per phase label (the same sequence of labels each round, else the first round's). */
function medianRows (rounds: Array<Array<[string, number, number, number]>>): string[][] {
  const first = rounds[0]
  const same = rounds.filter((r) => r.length === first.length && r.every((x, k) => x[0] === first[k][0]))
  const med = (xs: number[]): number => xs.sort((a, b) => a - b)[xs.length >> 1]
  return first.map((row, k) => [row[0], ...[1, 2, 3].map((c) => ms(med(same.map((r) => r[k][c] as number)), 1))])
}

try {
  const warm = randomPoints(1000, 1)
  await clientRun(JSON.stringify({ latitude: [...warm.lat], longitude: [...warm.lon], altitude_m: [...warm.alt],
    time: new Date(START).toISOString(), altitude_reference: 'agl' }), 'json')
  const p = randomPoints(POINTS, 20200804)
  const kinds: Array<['arrow' | 'json', Uint8Array | string]> = [['arrow', arrowBody(p)]]
  if (JSON_TOO) kinds.push(['json', jsonBody(p)])
  for (const [kind, body] of kinds) {
    finished.length = 0
    const client = await clientRun(body, kind)
    const rounds = finished.map((m, k) => phases(m, client[k])).slice(1) // the first warms this kind up
    process.stdout.write(`\n${kind}: ${POINTS} points, median of ${rounds.length} (first round dropped), ` +
      `${client[0].bytes} bytes out\n`)
    process.stdout.write(table(['phase', 'wall ms', 'main CPU ms', 'other threads CPU ms'], medianRows(rounds)) + '\n')
  }
} finally {
  await service.close()
  await rm(cacheDir, { recursive: true, force: true })
}
