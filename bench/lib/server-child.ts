// The aloft server child (bench/children/server.ts): started with the run's settings, asked for its
// CPU time and memory, sent profiles.
import { spawn, type ChildProcess } from 'node:child_process'
import { firstJsonLine, stop, track } from './children.js'
import { DIST_BENCH } from './paths.js'

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
 * Start bench/children/server.js with these ALOFT_* settings (on top of LOAD_ENV; any ALOFT_* of our
 * own environment is dropped so the run is what the table says). `nodeArgs`: e.g. `--cpu-prof`.
 */
export async function startServer (env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerChild> {
  const clean: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('ALOFT_') && k !== 'REDIS_URL' && k !== 'PORT' && k !== 'HOST') clean[k] = v
  }
  const child = track(spawn(process.execPath, [...nodeArgs, `${DIST_BENCH}children/server.js`], {
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
