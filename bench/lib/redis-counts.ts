// What a Redis served over a window, for bench/redis-trips and bench/redis-capacity: its
// commandstats (every command run, those a Lua script runs included) and its main thread's CPU,
// read before and after; and a MONITOR that tells the commands clients sent (each a request on
// the wire) from those scripts ran inside Redis.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { track, stop } from './children.js'
import { freePort, pingRedis, waitFor } from './processes.js'

/** `reads`: socket reads Redis processed (total_reads_processed): commands over reads is the batching. */
export interface RedisReading { calls: Map<string, number>, cpuUs: number, reads: number }

/** `cmdstat_evalsha:calls=3,usec=…` → evalsha: 3; and the main thread's CPU (µs). */
export async function readRedis (redis: Redis): Promise<RedisReading> {
  const calls = new Map<string, number>()
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim())
    if (m !== null) calls.set(m[1], Number(m[2]))
  }
  const cpu = await redis.info('cpu')
  const field = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? NaN)
  const main = field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread')
  const cpuUs = (Number.isFinite(main) ? main : field('used_cpu_user') + field('used_cpu_sys')) * 1e6
  const reads = Number(/total_reads_processed:(\d+)/.exec(await redis.info('stats'))?.[1])
  return { calls, cpuUs, reads }
}

/** after − before, per command; the reading commands' own calls (info, monitor, config) left out. */
export function callsBetween (before: RedisReading, after: RedisReading): Map<string, number> {
  const d = new Map<string, number>()
  for (const [name, n] of after.calls) {
    if (['info', 'monitor', 'config', 'client|list', 'ping'].includes(name)) continue
    const k = n - (before.calls.get(name) ?? 0)
    if (k > 0) d.set(name, k)
  }
  return d
}

/** Commands clients sent over a window (MONITOR's lines other than those of a script), by name. */
export class SentCommands {
  readonly sent = new Map<string, number>()
  private counting = false
  private constructor (private readonly base: Redis, private readonly monitor: Redis) {
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (!this.counting || source === 'lua') return
      const command = String(args[0]).toLowerCase()
      if (['info', 'config', 'client', 'ping'].includes(command)) return
      // the upstream limiter's own timer (its heartbeat): its keys carry the {upstream} tag
      const name = args.some((a) => String(a).includes('{upstream}')) ? `${command} (limiter)` : command
      this.sent.set(name, (this.sent.get(name) ?? 0) + 1)
    })
  }

  static async open (url: string): Promise<SentCommands> {
    const base = new Redis(url)
    return new SentCommands(base, await base.monitor())
  }

  /** Counts from now until `stop` (the previous window's counts forgotten). */
  start (): void {
    this.sent.clear()
    this.counting = true
  }

  /** MONITOR lines arrive after their commands ran: a settle before counting stops. */
  async stop (): Promise<Map<string, number>> {
    await new Promise((resolve) => setTimeout(resolve, 200))
    this.counting = false
    return new Map(this.sent)
  }

  close (): void {
    this.monitor.disconnect()
    this.base.disconnect()
  }
}

/** A redis-server of our own on a free port (AOF, fsync each second: a usual production setting). */
export async function ownRedis (fsync: 'everysec' | 'always' | 'no-aof' = 'everysec'):
Promise<{ url: string, port: number, close: () => Promise<void> }> {
  const port = await freePort()
  const dir = await mkdtemp(join(tmpdir(), 'aloft-redis-trips-'))
  const persistence = fsync === 'no-aof' ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', fsync]
  const child = track(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '',
    ...persistence, '--dir', dir, '--logfile', join(dir, 'redis.log')], { stdio: 'ignore' }))
  await waitFor('redis-server', async () => await pingRedis(port))
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    close: async () => {
      await stop(child)
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** `evalsha 1.000  hmget 1.000`: per request, largest first. */
export function perRequest (counts: Map<string, number>, requests: number): string {
  return [...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${(n / requests).toFixed(3)}`)
    .join('  ') || '—'
}

export function total (counts: Map<string, number>): number {
  let n = 0
  for (const v of counts.values()) n += v
  return n
}
