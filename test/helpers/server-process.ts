// The built service in a process of its own, as an attacker meets it: an attack that would kill
// it (out of memory, a loop) shows as a dead process or a silent /healthz, not as a hung test.
// Its heap is capped, so a runaway dies in seconds instead of swallowing the machine.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ROOT, repoPath } from './paths.js'
import { track } from '../../bench/lib/children.js'

export const PROCESS_ADMIN_TOKEN = 'process-admin-token-0123456789'

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** Resident memory in bytes (from /proc), or NaN once the process is gone. */
  rss: () => Promise<number>
  /** The process has not exited. */
  alive: () => boolean
  /** Milliseconds /healthz took to answer 200, or Infinity when it did not within `withinMs`. */
  health: (withinMs?: number) => Promise<number>
  newAccount: (name?: string) => Promise<{ accountId: string, key: string }>
  /** Everything the process wrote. */
  output: () => string
}

export interface ServerProcessOptions {
  env?: Record<string, string>
  /** V8's old-space cap (MB): a runaway dies fast. */
  heapMb?: number
}

export async function startServerProcess (t: Test, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'aloft-process-cache-'))
  t.teardown(() => rm(cacheDir, { recursive: true, force: true }))
  const args = [`--max-old-space-size=${options.heapMb ?? 768}`, 'dist/src/cli/main.js', 'serve']
  // `env -u NODE_OPTIONS`: tap's coverage hooks stay out of a process that is meant to be attacked
  const child = track(spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      ALOFT_SOURCE: `mirror:${repoPath('data/sample')}`,
      ALOFT_CACHE_DIR: cacheDir,
      ALOFT_WORKERS: '1',
      ALOFT_ADMIN_TOKEN: PROCESS_ADMIN_TOKEN,
      ALOFT_LOG_LEVEL: 'info',
      ...options.env
    },
    stdio: ['ignore', 'pipe', 'pipe']
  }))
  let output = ''
  child.stdout.on('data', (d) => { output += d })
  child.stderr.on('data', (d) => { output += d })
  let exited = false
  child.once('exit', () => { exited = true })
  t.teardown(() => { if (!exited) child.kill('SIGKILL') })
  const url = await new Promise<string>((resolve, reject) => {
    const look = (): void => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output)
      if (match !== null) resolve(match[1])
    }
    child.stdout.on('data', look)
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${output}`)))
  })
  const rss = async (): Promise<number> => {
    try {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024
    } catch {
      return NaN
    }
  }
  const health = async (withinMs = 5000): Promise<number> => {
    const started = performance.now()
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(withinMs) })
      await res.arrayBuffer()
      return res.status === 200 ? performance.now() - started : Infinity
    } catch {
      return Infinity
    }
  }
  const newAccount = async (name = 'attacker'): Promise<{ accountId: string, key: string }> => {
    const res = await fetch(`${url}/v1/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PROCESS_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name })
    })
    if (res.status !== 201) throw new Error(`account creation answered ${res.status}`)
    const body = await res.json() as { account: { id: string }, key: { key: string } }
    return { accountId: body.account.id, key: body.key.key }
  }
  return { url, child, rss, alive: () => !exited && child.exitCode === null, health, newAccount, output: () => output }
}
