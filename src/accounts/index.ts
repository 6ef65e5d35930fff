// Choose the account store: Redis when a URL is configured (several instances share it),
// else the in-memory store (one process).
import type { AccountLimits, AccountStore } from './store.js'
import { MemoryStore } from './memory.js'
import { RedisStore, type StoreLogger } from './redis.js'

export * from './store.js'
export { DEFAULT_LIMITS, isPublicClient, PUBLIC_ACCOUNT, PUBLIC_RATE_PREFIX } from './limits.js'
export { redactSecrets } from './secrets.js'
export { MemoryStore } from './memory.js'
export { RedisStore, type RedisStoreOptions, type StoreLogger } from './redis.js'
export { KeyLayout } from './layout.js'

export const DEFAULT_REDIS_PREFIX = 'aloft:'

export interface StoreOptions {
  redisUrl?: string
  /** Key prefix in Redis; default `aloft:`. */
  prefix?: string
  limits: AccountLimits
  logger?: StoreLogger
  /** Redis only: bound on waiting for a connection or a reply; default 1000 ms. */
  timeoutMs?: number
}

export function createStore (options: StoreOptions): AccountStore {
  if (options.redisUrl === undefined || options.redisUrl === '') return new MemoryStore(options.limits)
  return new RedisStore({
    url: options.redisUrl,
    prefix: options.prefix ?? DEFAULT_REDIS_PREFIX,
    limits: options.limits,
    logger: options.logger,
    timeoutMs: options.timeoutMs
  })
}
