// Single flight across instances: before fetching a unit an instance takes the unit's lock in
// the Redis its cluster shares; the others wait for the unit to land in the shared raw cache.
// A lock expires on its own, so a holder that died holds nobody up for long.
import { randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'

export interface UnitLocks {
  /** Takes the lock of `key` for `ttlMs`; false when another instance holds it. */
  acquire (key: string, ttlMs: number): Promise<boolean>
  /** Whether any instance holds the lock of `key`. */
  held (key: string): Promise<boolean>
  /** Gives back a lock this instance took (never another's, even after ours expired). */
  release (key: string): Promise<void>
}

/** One process alone: its own single flight is all there is. */
export const LOCAL_LOCKS: UnitLocks = {
  acquire: async () => true,
  held: async () => false,
  release: async () => {}
}

// Deletes the lock only while it is still ours.
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

export class RedisUnitLocks implements UnitLocks {
  /** This instance's token: a lock is released only by the instance that took it. */
  readonly #owner = randomBytes(9).toString('base64url')

  /**
   * `onUnreachable`: Redis cannot be asked. The lock is then taken as granted: a unit fetched twice
   * costs less than requests refused while Redis is away.
   */
  constructor (
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
    private readonly onUnreachable: (err: unknown) => void
  ) {}

  #key (key: string): string {
    return `${this.prefix}unit_lock:${key}`
  }

  async acquire (key: string, ttlMs: number): Promise<boolean> {
    try {
      return await this.redis.set(this.#key(key), this.#owner, 'PX', Math.ceil(ttlMs), 'NX') === 'OK'
    } catch (err) {
      this.onUnreachable(err)
      return true
    }
  }

  async held (key: string): Promise<boolean> {
    try {
      return await this.redis.exists(this.#key(key)) === 1
    } catch (err) {
      this.onUnreachable(err)
      return false
    }
  }

  async release (key: string): Promise<void> {
    try {
      await this.redis.eval(RELEASE, 1, this.#key(key), this.#owner)
    } catch (err) {
      this.onUnreachable(err) // the lock expires on its own
    }
  }
}
