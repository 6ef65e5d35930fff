// The Redis store's connection: bounded waits, errors translated, scripts by their SHA, and once
// per connection the key layout (moving layout 1) and the server's persistence checked.
//
// Availability: no offline queue, bounded connect and command timeouts, and a retry strategy that
// reconnects forever in the background. While a connection attempt is under way (at start-up, or
// a reconnect) a call waits at most timeoutMs for it; between attempts it fails at once. Either
// way it rejects with StoreUnavailableError, and once Redis is back the same store works again.
//
// Durability: at each connection the persistence settings are read and a warning kept (log and
// readiness) when neither AOF nor RDB is on, and when Redis comes back without aloft's data.
import { StoreUnavailableError, UnknownAccountError } from './store.js'
import type { Script } from './scripts.js'
import { type KeyLayout, LAYOUT, migrateFromLayout1 } from './layout.js'
import { connectRedis, type RedisClient } from '../redis.js'

// Replies that mean "Redis is there but cannot serve now": treated like an outage.
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|OOM|NOREPLICAS|MISCONF)\b/

export interface StoreLogger {
  warn (obj: object, msg?: string): void
  error?: (obj: object, msg?: string) => void
}

export interface LinkOptions {
  url: string
  k: KeyLayout
  /** Upper bound on waiting for a connection and for one command. */
  timeoutMs: number
  logger?: StoreLogger
  /** Redis came back without aloft's data: what was remembered of it is stale. */
  onDataLost: () => void
}

export class RedisLink {
  readonly redis: RedisClient
  private readonly k: KeyLayout
  private readonly timeoutMs: number
  private readonly logger: StoreLogger | undefined
  private readonly onDataLost: () => void
  /** One shared wait for 'ready' while disconnected, so waiting calls add no listeners each. */
  private readyWait: Promise<void> | null = null
  private unreachable = false
  /** The layout check (and a one-time move from layout 1) of the current connection. */
  private layoutChecked: Promise<void> | null = null
  /** The layout check of this connection has passed: calls need not wait for anything. */
  private layoutReady = false
  private sawLayout = false
  private readonly warningsNow = new Set<string>()

  constructor (o: LinkOptions) {
    this.k = o.k
    this.timeoutMs = o.timeoutMs
    this.logger = o.logger
    this.onDataLost = o.onDataLost
    this.redis = connectRedis(o.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A write whose reply was lost must not be replayed later (it could charge twice).
      autoResendUnfulfilledCommands: false,
      // Commands issued in one turn of the event loop (many requests admitted at once) leave in one
      // write and their replies come back in one read: fewer system calls under load.
      enableAutoPipelining: true,
      connectTimeout: this.timeoutMs,
      commandTimeout: this.timeoutMs,
      retryStrategy: (attempt) => Math.min(100 * attempt, 1000)
    }, { clusterRetryStrategy: (attempt) => Math.min(100 * attempt, 1000) })
    // Without an 'error' listener ioredis reports errors as unhandled. Each outage is logged
    // once, when first noticed (never the URL: it may carry a password).
    this.redis.on('error', (err: NodeJS.ErrnoException) => this.lost({ code: err.code, reason: err.message }))
    this.redis.on('reconnecting', () => this.lost({ reason: 'connection closed' }))
    this.redis.on('ready', () => {
      this.layoutChecked = null // a new connection: check again what the server holds
      this.layoutReady = false
      if (!this.unreachable) return
      this.unreachable = false
      this.logger?.warn({}, 'account store: Redis reachable again')
    })
  }

  /** What an operator should know about the store now (readiness shows it). */
  warnings (): string[] {
    return [...this.warningsNow]
  }

  async close (): Promise<void> {
    if (this.redis.status === 'end') return
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit()
        return
      } catch {
        // The connection went away meanwhile; disconnect below stops the reconnecting too.
      }
    }
    this.redis.disconnect()
  }

  private lost (detail: object): void {
    if (this.unreachable) return
    this.unreachable = true
    this.logger?.warn(detail, 'account store: Redis unreachable, reconnecting')
  }

  /**
   * Once per connection: the layout marker (moving layout 1 when found), and the server's
   * persistence. A marker gone after it was seen means Redis restarted without its data.
   */
  private async checkLayout (): Promise<void> {
    const marker = await this.redis.get(this.k.layout)
    if (marker === null) {
      if (this.sawLayout) {
        const lost = 'Redis came back without aloft\'s data (no persistence?): accounts and keys made before are gone'
        this.warningsNow.add(lost)
        this.onDataLost()
        this.logger?.error?.({}, `account store: ${lost}`)
      }
      const moved = await migrateFromLayout1(this.redis, this.k)
      if (moved > 0) {
        this.logger?.warn({ accounts: moved }, 'account store: moved accounts to the hash-tagged key layout')
      }
    } else if (marker !== LAYOUT) {
      throw new Error(`account store: Redis holds key layout ${marker}; this aloft knows layout ${LAYOUT}`)
    }
    this.sawLayout = true
    await this.checkPersistence()
  }

  private async checkPersistence (): Promise<void> {
    const warning = 'Redis persists nothing (appendonly no, save ""): a Redis restart loses every account, key and ' +
      'allowance'
    const nodes = 'nodes' in this.redis ? this.redis.nodes('master') : [this.redis]
    try {
      let persists = true
      for (const node of nodes) {
        const [, aof] = await node.config('GET', 'appendonly') as string[]
        const [, save] = await node.config('GET', 'save') as string[]
        if (aof !== 'yes' && (save === undefined || save.trim() === '')) persists = false
      }
      if (persists) {
        this.warningsNow.delete(warning)
      } else if (!this.warningsNow.has(warning)) {
        this.warningsNow.add(warning)
        this.logger?.error?.({}, `account store: ${warning}. Turn on AOF (appendonly yes) or RDB snapshots.`)
      }
    } catch (err) {
      // managed Redis services often refuse CONFIG: say what cannot be checked, once
      const unknown = 'Redis does not tell its persistence settings (CONFIG GET refused); make sure it persists'
      if (!this.warningsNow.has(unknown)) {
        this.logger?.warn({ reason: (err as Error).message }, `account store: ${unknown}`)
      }
      this.warningsNow.add(unknown)
    }
  }

  /** Runs a script by its SHA, loading it once per server (after a restart the cache is empty). */
  async script (s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    return await this.run(async () => {
      try {
        return await this.redis.evalsha(s.sha, keys.length, ...keys, ...args)
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
        return await this.redis.eval(s.lua, keys.length, ...keys, ...args)
      }
    })
  }

  /** Every Redis call goes through here: bounded wait for a connection, layout checked, errors translated. */
  run<T> (op: () => Promise<T>): Promise<T> {
    // connected and checked (nearly every call): straight to the command, no waits to chain
    if (!this.layoutReady || this.redis.status !== 'ready') return this.runWaiting(op)
    try {
      return op().catch((err) => { throw translate(err) })
    } catch (err) {
      return Promise.reject(translate(err))
    }
  }

  private async runWaiting<T> (op: () => Promise<T>): Promise<T> {
    try {
      await this.connected()
      if (this.layoutChecked === null) {
        const checking: Promise<void> = this.checkLayout().then(
          () => { if (this.layoutChecked === checking) this.layoutReady = true },
          (err) => { this.layoutChecked = null; throw err })
        this.layoutChecked = checking
      }
      await this.layoutChecked
      return await op()
    } catch (err) {
      throw translate(err)
    }
  }

  private async connected (): Promise<void> {
    const status = this.redis.status
    if (status === 'ready') return
    if (status === 'end') throw new StoreUnavailableError('account store is closed')
    // Between reconnect attempts, fail at once rather than hold every request for timeoutMs.
    if (status === 'reconnecting' || status === 'close') {
      throw new StoreUnavailableError('account store unavailable: Redis connection lost, reconnecting')
    }
    this.readyWait ??= new Promise<void>((resolve) => {
      this.redis.once('ready', () => {
        this.readyWait = null
        resolve()
      })
    })
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError(
        `account store unavailable: no Redis connection within ${this.timeoutMs} ms`)), this.timeoutMs)
    })
    try {
      await Promise.race([this.readyWait, timeout])
    } finally {
      clearTimeout(timer)
    }
  }
}

/**
 * Redis errors carry the command and its arguments (key names hold key hashes), so none is passed
 * on: an outage becomes StoreUnavailableError, anything else a plain error with Redis's message.
 */
function translate (err: unknown): Error {
  if (err instanceof StoreUnavailableError || err instanceof UnknownAccountError) return err
  const message = err instanceof Error ? err.message : String(err)
  const isReply = err instanceof Error && err.name === 'ReplyError'
  if (isReply && !TRANSIENT_REPLY.test(message)) return new Error(`account store: Redis replied ${message}`)
  return new StoreUnavailableError(`account store unavailable: ${message}`)
}
