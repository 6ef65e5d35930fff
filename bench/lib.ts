// Shared by the benchmarks: paths, percentiles, tables, results, child processes (always
// killed), the aloft server child and the load generator child.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import type { LoadResult, LoadSpec } from './loadgen.js'

/** The repository root (this file runs as dist/bench/lib.js). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const DIST_BENCH = fileURLToPath(new URL('./', import.meta.url))
export const SAMPLE = `${ROOT}data/sample`
export const RESULTS = `${ROOT}bench/results`

export { percentile, summarize, type Summary } from './stats.js'

/** Fixed-width text table. */
export function table (header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)))
  return [header, ...rows].map((r) => r.map((x, c) => (x ?? '').padEnd(widths[c])).join('  ').trimEnd()).join('\n')
}

export const ms = (x: number, digits = 2): string => Number.isFinite(x) ? x.toFixed(digits) : 'n/a'
export const int = (x: number): string => Number.isFinite(x) ? Math.round(x).toString() : 'n/a'

export function machine (): { node: string, cpu: string, cores: number, memory_gib: number, platform: string } {
  const c = cpus()
  return {
    node: process.version,
    cpu: c[0]?.model ?? 'unknown',
    cores: c.length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`
  }
}

export function writeResult (name: string, result: unknown): string {
  mkdirSync(RESULTS, { recursive: true })
  const path = `${RESULTS}/${name}.json`
  const contents = { benchmark: name, at: new Date().toISOString(), machine: machine(), ...(result as object) }
  writeFileSync(path, JSON.stringify(contents, null, 2) + '\n')
  return path
}

/** `--name value` from argv, as a number; the fallback when absent. */
export function numberArg (name: string, fallback: number): number {
  const k = process.argv.indexOf(`--${name}`)
  if (k < 0) return fallback
  const n = Number(process.argv[k + 1])
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number, got ${process.argv[k + 1]}`)
  return n
}

export const sleep = (msec: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, msec))

// ---- child processes: every one we start is killed when we leave, however we leave ----

const children = new Set<ChildProcess>()
function killAll (): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}
process.on('exit', killAll)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => { killAll(); process.exit(130) })
}

export function track (child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** Stop a child: SIGTERM, then SIGKILL after `graceMs`. */
export async function stop (child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/** Spawn `node <script> ...args` and resolve with its first stdout line parsed as JSON. */
/** The first line that parses as JSON and is `accepted`; others (the service's own logs) pass to stderr. */
async function firstJsonLine<T> (child: ChildProcess, what: string, timeoutMs: number,
  accepted: (value: T) => boolean = () => true): Promise<T> {
  const lines = createInterface({ input: child.stdout! })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000) })
  return await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${what} gave no answer in ${timeoutMs} ms; stderr: ${stderr}`))
    }, timeoutMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited (${code ?? signal}) before answering; stderr: ${stderr}`))
    })
    const onLine = (line: string): void => {
      let value: T
      try {
        value = JSON.parse(line) as T
      } catch {
        clearTimeout(timer)
        reject(new Error(`${what} printed ${line.slice(0, 200)}; stderr: ${stderr}`))
        return
      }
      if (!accepted(value)) {
        process.stderr.write(`[${what}] ${line}\n`)
        return
      }
      clearTimeout(timer)
      lines.off('line', onLine)
      resolve(value)
    }
    lines.on('line', onLine)
  })
}

// ---- the aloft server child (bench/server.ts) ----

export interface ServerInfo { aloftUrl: string, bareUrl: string, key: string, pid: number }
export interface ServerChild { info: ServerInfo, child: ChildProcess, stop: () => Promise<void> }

/** Environment shared by every load run: quiet logs, rate limits and allowances out of the way. */
export const LOAD_ENV: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  ALOFT_LOG_LEVEL: 'warn',
  ALOFT_SHUTDOWN_GRACE_MS: '1000',
  ALOFT_RATE_PER_SECOND: '1000000',
  ALOFT_RATE_BURST: '1000000',
  ALOFT_DAILY_ALLOWANCE: '1000000000'
}

/**
 * Start bench/server.js with these ALOFT_* settings (on top of LOAD_ENV; any ALOFT_* of our own
 * environment is dropped so the run is what the table says). `nodeArgs`: e.g. `--cpu-prof`.
 */
export async function startServer (env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerChild> {
  const clean: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('ALOFT_') && k !== 'REDIS_URL' && k !== 'PORT' && k !== 'HOST') clean[k] = v
  }
  const child = track(spawn(process.execPath, [...nodeArgs, `${DIST_BENCH}server.js`], {
    env: { ...clean, ...LOAD_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  }))
  try {
    const info = await firstJsonLine<ServerInfo>(child, 'bench/server', 30_000, (v) => typeof v.aloftUrl === 'string')
    child.stderr?.on('data', (d: Buffer) => process.stderr.write(`[server] ${d.toString()}`))
    return { info, child, stop: async () => await stop(child) }
  } catch (err) {
    await stop(child)
    throw err
  }
}

/**
 * The server child's CPU time so far (user + system, every thread, µs), as it reports it: taken
 * before and after a run, the difference over the requests is a cost other processes on the
 * machine disturb far less than a wall-clock rate.
 */
export async function serverCpuUs (server: ServerChild): Promise<number> {
  const { user_us: user, system_us: system } = await (await fetch(`${server.info.bareUrl}/cpu`)).json() as
    { user_us: number, system_us: number }
  return user + system
}

/** Resident set size of the server child, as it reports it (bare app, same process). */
export async function serverMemory (
  server: ServerChild
): Promise<{ rss: number, heapUsed: number, external: number, arrayBuffers: number, fds: number | null }> {
  const res = await fetch(`${server.info.bareUrl}/memory`)
  return await res.json() as {
    rss: number, heapUsed: number, external: number, arrayBuffers: number, fds: number | null
  }
}

// ---- the load generator child (bench/loadgen.ts) ----

/** Run the Node load generator in its own process; resolves with its result. */
export async function loadgen (spec: LoadSpec): Promise<LoadResult> {
  const child = track(spawn(process.execPath, [`${DIST_BENCH}loadgen.js`, JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'pipe']
  }))
  try {
    const bound = (spec.seconds + (spec.warmupSeconds ?? 0) + (spec.drainSeconds ?? 10) + 30) * 1000
    return await firstJsonLine<LoadResult>(child, 'bench/loadgen', bound)
  } finally {
    await stop(child)
  }
}

export { profileBody, profileBodies } from './bodies.js'

/** POST a profile; status, milliseconds and the parsed body. */
export async function postProfile (
  server: ServerInfo,
  body: string
): Promise<{ status: number, ms: number, json: unknown }> {
  const t0 = performance.now()
  const res = await fetch(`${server.aloftUrl}/v1/atmosphere/profile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.key },
    body
  })
  const json = await res.json()
  return { status: res.status, ms: performance.now() - t0, json }
}
