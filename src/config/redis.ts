// REDIS_URL and ALOFT_REDIS_PREFIX: a URL the Redis client can use, and a prefix that keeps each
// account's keys in one Redis Cluster slot.
import { parseRedisUrl } from '../redis.js'
import type { VariableReader } from './reader.js'

/** The Redis URL, or undefined (unset: the in-memory store). */
export function readRedisUrl (read: VariableReader): string | undefined {
  const url = read.given('REDIS_URL')
  if (url !== undefined) {
    try {
      parseRedisUrl(url)
    } catch (err) {
      read.problems.push(`REDIS_URL is invalid (${(err as Error).message}): expected ` +
        `redis://[user:password@]host[:port][/db], ` +
        'rediss://…, or a cluster as redis+cluster://[user:password@]host:port,host:port')
    }
  }
  return url
}

export function readRedisPrefix (read: VariableReader): string {
  const prefix = read.raw('ALOFT_REDIS_PREFIX')
  if (!/^[\x21-\x7a|~]{1,64}$/.test(prefix)) {
    // braces would change the hash tags that keep each account's keys in one Redis Cluster slot
    read.problems.push('ALOFT_REDIS_PREFIX is invalid: expected 1–64 printable characters without spaces or braces')
  }
  return prefix
}
