// Redis for tests. Test files run in parallel against one shared server, so each file works under
// a key prefix of its own and deletes exactly that prefix afterwards (never FLUSHDB/FLUSHALL).
// spawnRedis starts a private throwaway server for tests that must kill it.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import type { Test } from 'tap'
import { track } from '../../bench/lib/children.js'

export function redisUrl (): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
}

/** A prefix no other test (file or run) uses: `test:<name>:<random>:`. */
export function uniquePrefix (name: string): string {
  return `test:${name}:${randomBytes(6).toString('hex')}:`
}

/** A unique prefix that is deleted when `t` ends. */
export function testPrefix (t: Test, name: string, url = redisUrl()): string {
  const prefix = uniquePrefix(name)
  t.teardown(() => deletePrefix(url, prefix))
  return prefix
}

/** Calls fn with a short-lived connection, always closed afterwards. */
async function withRedis<T> (url: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await redis.connect()
  try {
    return await fn(redis)
  } finally {
    await redis.quit()
  }
}

/** SCAN MATCH needs glob characters in the prefix escaped. */
function matchPrefix (prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, '\\$&') + '*'
}

async function keysUnder (redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = []
  let cursor = '0'
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', matchPrefix(prefix), 'COUNT', 500)
    keys.push(...batch)
    cursor = next
  } while (cursor !== '0')
  return [...new Set(keys)] // SCAN may return a key twice
}

/** Deletes every key under the prefix; returns how many there were. */
export async function deletePrefix (url: string, prefix: string): Promise<number> {
  if (prefix === '') throw new Error('refusing to delete an empty prefix (the whole database)')
  return await withRedis(url, async (redis) => {
    const keys = await keysUnder(redis, prefix)
    for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500))
    return keys.length
  })
}

/** Every key under the prefix with its value rendered as text (for "what is stored" checks). */
export async function dumpPrefix (url: string, prefix: string): Promise<Map<string, string>> {
  return await withRedis(url, async (redis) => {
    const out = new Map<string, string>()
    for (const key of await keysUnder(redis, prefix)) {
      const type = await redis.type(key)
      const value = type === 'string'
        ? await redis.get(key)
        : type === 'hash'
          ? await redis.hgetall(key)
          : type === 'zset'
            ? await redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
            : type === 'set'
              ? await redis.smembers(key)
              : type === 'list' ? await redis.lrange(key, 0, -1) : `<${type}>`
      out.set(key, JSON.stringify(value))
    }
    return out
  })
}

export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null
        ? resolve(address.port)
        : reject(new Error('no port')))
    })
  })
}

export interface SpawnedRedis {
  port: number
  url: string
  /** Kills the server (SIGKILL: an outage, not a shutdown) and waits for it to exit. */
  stop (): Promise<void>
}

export interface SpawnOptions {
  /** Keep data in this directory (append-only file, fsync on every write), so a restart keeps it. */
  persistDir?: string
  /** Extra redis-server arguments. */
  args?: string[]
}

/**
 * Starts a private redis-server (no persistence unless asked) on `port` or a free one and waits
 * until it answers. Pass the port (and directory) of a stopped server to bring it back.
 */
export async function spawnRedis (port?: number, options: SpawnOptions = {}): Promise<SpawnedRedis> {
  const p = port ?? await freePort()
  const persistence = options.persistDir === undefined
    ? ['--save', '', '--appendonly', 'no']
    : ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.persistDir]
  const child: ChildProcess = track(spawn('redis-server',
    ['--port', String(p), '--bind', '127.0.0.1', ...persistence, ...(options.args ?? [])], { stdio: 'ignore' }))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const failed = new Promise<never>((_resolve, reject) => child.once('error', reject))
  const url = `redis://127.0.0.1:${p}`
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  const deadline = Date.now() + 5000
  for (;;) {
    const ready = await Promise.race([answers(url), failed])
    if (ready) return { port: p, url, stop }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`redis-server did not answer on ${url} within 5 s`)
    }
    await sleep(25)
  }
}

async function answers (url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500
  })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}
