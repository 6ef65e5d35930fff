// The account store shared by several instances. Every update that reads before it writes is one
// Lua script (src/accounts/lua/), so concurrent instances cannot over-charge an allowance or a
// rate bucket. The key layout is in layout.ts: each account's keys share one hash tag, so the
// store runs on a single Redis or a Redis Cluster alike.
//
// A rate-limited request costs one round trip: `admit` (the key record and the rate bucket in one
// script). The lookup from a secret's hash to its account and key id never changes once made, so
// it is remembered in the process; whether the key is live is read from Redis on every request, so
// a revoke through any instance is seen by every instance on its next call. Secrets are never
// stored, only their SHA-256.
//
// Clock: the allowance day and the rate bucket use the `nowMs` a caller passes (tests), else the
// Redis server's TIME inside the script, so all instances share one clock whatever their own
// clocks say. created_at / revoked_at are this process's clock (informational only).
//
// Availability: no offline queue, bounded connect and command timeouts, and a retry strategy that
// reconnects forever in the background. While a connection attempt is under way (at start-up, or
// a reconnect) a call waits at most timeoutMs for it; between attempts it fails at once. Either
// way it rejects with StoreUnavailableError, and once Redis is back the same store works again.
//
// Durability: at each connection the store reads Redis's persistence settings and warns (log and
// readiness) when neither AOF nor RDB is on, and warns when Redis comes back without aloft's data.
import {
  type AccountLimits, type Admission, type AccountRecord, type AccountStore, type AllowanceState, type Authentication,
  type KeyPageRequest, type KeyRecord, type RateDecision, type Reservation, KeyLimitError, StoreUnavailableError,
  UnknownAccountError, UnknownCursorError
} from './store.js'
import { allowanceState, checkLimits, clockMs, gcra, type Gcra, rateDecision } from './limits.js'
import { hashSecret, looksLikeSecret, newId, newSecret, sameHash } from './secrets.js'
import { SCRIPTS, type Script } from './scripts.js'
import { KeyLayout, LAYOUT, migrateFromLayout1 } from './layout.js'
import { connectRedis, type RedisClient } from '../redis.js'

export interface RedisStoreOptions {
  url: string
  /** Prepended to every key; several deployments (or test files) can share one server. */
  prefix: string
  limits: AccountLimits
  logger?: StoreLogger
  /** Upper bound on waiting for a connection and for one command; default 1000 ms. */
  timeoutMs?: number
}

const KEY_FIELDS = ['id', 'account_id', 'prefix', 'name', 'created_at', 'revoked_at'] as const

// Replies that mean "Redis is there but cannot serve now": treated like an outage.
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|OOM|NOREPLICAS|MISCONF)\b/

/** Secret-hash lookups remembered in the process (cleared when full; each entry is about 150 bytes). */
const INDEX_LIMIT = 100_000

export interface StoreLogger {
  warn (obj: object, msg?: string): void
  error?: (obj: object, msg?: string) => void
}

export class RedisStore implements AccountStore {
  readonly kind = 'redis'
  private readonly redis: RedisClient
  private readonly k: KeyLayout
  private readonly limits: Required<AccountLimits>
  private readonly gcra: Gcra
  private readonly timeoutMs: number
  private readonly logger: StoreLogger | undefined
  /** One shared wait for 'ready' while disconnected, so waiting calls add no listeners each. */
  private readyWait: Promise<void> | null = null
  private unreachable = false
  /** The layout check (and a one-time move from layout 1) of the current connection. */
  private layoutChecked: Promise<void> | null = null
  /** The layout check of this connection has passed: calls need not wait for anything. */
  private layoutReady = false
  private sawLayout = false
  /** Secret hash → its account and key id: never changes once made. */
  private readonly index = new Map<string, { accountId: string, keyId: string }>()
  private readonly warningsNow = new Set<string>()

  constructor (options: RedisStoreOptions) {
    this.k = new KeyLayout(options.prefix)
    this.limits = checkLimits(options.limits)
    this.gcra = gcra(this.limits)
    this.timeoutMs = options.timeoutMs ?? 1000
    this.logger = options.logger
    this.redis = connectRedis(options.url, {
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

  /** What an operator should know about this store now (readiness shows it). */
  warnings (): string[] {
    return [...this.warningsNow]
  }

  async createAccount (name: string): Promise<AccountRecord> {
    const account: AccountRecord = { id: newId('acct'), name, created_at: nowSeconds() }
    await this.run(() => this.redis.hset(this.k.account(account.id), account))
    return account
  }

  async getAccount (id: string): Promise<AccountRecord | null> {
    const [aid, name,
      createdAt] = await this.run(() => this.redis.hmget(this.k.account(id), 'id', 'name', 'created_at'))
    if (aid === null || name === null || createdAt === null) return null
    return { id: aid, name, created_at: Number(createdAt) }
  }

  async createKey (accountId: string, name: string): Promise<{ record: KeyRecord, secret: string }> {
    const { secret, hash, prefix } = newSecret()
    const id = newId('key')
    const record: KeyRecord = { id, account_id: accountId, prefix, name, created_at: nowSeconds(), revoked_at: null }
    const created = await this.script(SCRIPTS.createKey,
      [this.k.account(accountId), this.k.key(accountId, id), this.k.keys(accountId), this.k.keySeq(accountId),
        this.k.liveKeys(accountId)],
      [id, accountId, prefix, name, record.created_at, hash, this.limits.maxKeys, this.k.keyRecordPrefix(accountId)])
    if (created === -1) throw new KeyLimitError(this.limits.maxKeys)
    if (created !== 1) throw new UnknownAccountError(accountId)
    // The lookups live in other slots: written after the record, so a key is never found before it exists.
    await this.run(() => Promise.all([
      this.redis.set(this.k.keyHash(hash), `${accountId} ${id}`),
      this.redis.set(this.k.keyOwner(id), accountId)
    ]))
    return { record, secret }
  }

  async getKey (keyId: string): Promise<KeyRecord | null> {
    return await this.run(async () => {
      const accountId = await this.redis.get(this.k.keyOwner(keyId))
      if (accountId === null) return null
      return toKeyRecord(await this.redis.hmget(this.k.key(accountId, keyId), ...KEY_FIELDS))
    })
  }

  async listKeys (accountId: string, page?: KeyPageRequest): Promise<KeyRecord[]> {
    let from = 0
    if (page?.after !== undefined) {
      const after = page.after
      const rank = await this.run(() => this.redis.zrevrank(this.k.keys(accountId), after))
      if (rank === null) throw new UnknownCursorError(`no key ${after} in this account's list`)
      from = rank + 1
    }
    return await this.run(async () => {
      const ids = await this.redis.zrevrange(this.k.keys(accountId), from,
        page === undefined ? -1 : from + page.limit - 1)
      if (ids.length === 0) return []
      const pipeline = this.redis.pipeline() // one slot: the account's
      for (const id of ids) pipeline.hmget(this.k.key(accountId, id), ...KEY_FIELDS)
      const replies = (await pipeline.exec()) ?? []
      const keys: KeyRecord[] = []
      for (const [err, fields] of replies) {
        if (err !== null) throw err
        const record = toKeyRecord(fields as Array<string | null>)
        if (record !== null) keys.push(record)
      }
      return keys
    })
  }

  async revokeKey (accountId: string, keyId: string): Promise<KeyRecord | null> {
    const reply = await this.script(SCRIPTS.revokeKey,
      [this.k.key(accountId, keyId), this.k.liveKeys(accountId), this.k.revoked(accountId), this.k.keys(accountId)],
      [accountId, nowSeconds(), this.limits.maxKeys, this.k.keyRecordPrefix(accountId), ...KEY_FIELDS])
    if (!Array.isArray(reply)) return null
    const [fields, forgotten] = reply as [Array<string | null>, string[] | null]
    if (forgotten !== null && forgotten.length > 0) await this.forget(forgotten)
    return toKeyRecord(fields)
  }

  /** The lookups (in other slots) of keys the account no longer keeps: pairs of key id and secret hash. */
  private async forget (pairs: string[]): Promise<void> {
    const gone: string[] = []
    for (let k = 0; k < pairs.length; k += 2) {
      gone.push(this.k.keyOwner(pairs[k]))
      if (pairs[k + 1] !== '') {
        gone.push(this.k.keyHash(pairs[k + 1]))
        this.index.delete(pairs[k + 1])
      }
    }
    await this.run(() => Promise.all(gone.map(async (key) => await this.redis.del(key))))
  }

  async authenticate (secret: string): Promise<Authentication> {
    if (!looksLikeSecret(secret)) return { ok: false, reason: 'invalid_api_key' }
    const hash = hashSecret(secret)
    return await this.run(async () => {
      const found = await this.locate(hash)
      if (found === null) return { ok: false, reason: 'invalid_api_key' }
      const [revokedAt, stored] = await this.redis.hmget(this.k.key(found.accountId, found.keyId), 'revoked_at',
        'secret_sha256')
      if (stored === null || !sameHash(stored, hash)) return { ok: false, reason: 'invalid_api_key' }
      if (revokedAt !== '') return { ok: false, reason: 'revoked_api_key' }
      return { ok: true, account_id: found.accountId, key_id: found.keyId }
    })
  }

  async allowance (accountId: string, nowMs?: number): Promise<AllowanceState> {
    const [used, msToReset] = await this.script(SCRIPTS.allowance, [this.k.allowance(accountId)],
      [clock(nowMs)]) as number[]
    return allowanceState(used, this.limits.dailyAllowance, msToReset)
  }

  async reserve (accountId: string, nowMs?: number): Promise<Reservation> {
    const [charged, used, msToReset] = await this.script(SCRIPTS.reserve, [this.k.allowance(accountId)],
      [clock(nowMs), this.limits.dailyAllowance]) as number[]
    const state = allowanceState(used, this.limits.dailyAllowance, msToReset)
    return charged === 1 ? { ok: true, state } : { ok: false, state, retry_after_seconds: state.reset_after_seconds }
  }

  async takeRequest (accountId: string, nowMs?: number, cost = 1): Promise<RateDecision> {
    const [allowed, fullInUs, retryInUs] = await this.script(SCRIPTS.takeRequest, [this.k.rate(accountId)],
      [clock(nowMs), this.gcra.intervalUs, this.gcra.burst, cost]) as number[]
    return rateDecision(this.gcra, { allowed: allowed === 1, fullInUs, retryInUs })
  }

  async admit (secret: string, nowMs?: number): Promise<Admission> {
    if (!looksLikeSecret(secret)) return { ok: false, reason: 'invalid_api_key' }
    const hash = hashSecret(secret)
    // a hash seen before needs no call of its own (the script below checks the connection anyway)
    const found = this.index.get(hash) ?? await this.run(async () => await this.locate(hash))
    if (found === null) return { ok: false, reason: 'invalid_api_key' }
    const { accountId, keyId } = found
    const reply = await this.script(SCRIPTS.admit, [this.k.key(accountId, keyId), this.k.rate(accountId)],
      [clock(nowMs), this.gcra.intervalUs, this.gcra.burst, hash]) as number[]
    if (reply[0] === 0) return { ok: false, reason: 'invalid_api_key' }
    if (reply[0] === 1) return { ok: false, reason: 'revoked_api_key' }
    const [, allowed, fullInUs, retryInUs] = reply
    return {
      ok: true,
      key_id: keyId,
      account_id: accountId,
      rate: rateDecision(this.gcra,
        { allowed: allowed === 1, fullInUs: Number(fullInUs), retryInUs: Number(retryInUs) })
    }
  }

  async ping (): Promise<void> {
    await this.run(() => this.redis.ping())
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

  /** The account and key id of a secret's hash: remembered, else looked up (null: no such key). */
  private async locate (hash: string): Promise<{ accountId: string, keyId: string } | null> {
    const known = this.index.get(hash)
    if (known !== undefined) return known
    const value = await this.redis.get(this.k.keyHash(hash))
    const space = value === null ? -1 : value.indexOf(' ')
    if (value === null || space < 0) return null
    const found = { accountId: value.slice(0, space), keyId: value.slice(space + 1) }
    if (this.index.size >= INDEX_LIMIT) this.index.clear()
    this.index.set(hash, found)
    return found
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
        this.index.clear()
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
  private async script (s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
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
  private run<T> (op: () => Promise<T>): Promise<T> {
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

function toKeyRecord (fields: Array<string | null>): KeyRecord | null {
  const [id, accountId, prefix, name, createdAt, revokedAt] = fields
  if (id === null || accountId === null || prefix === null || name === null || createdAt === null) return null
  return {
    id,
    account_id: accountId,
    prefix,
    name,
    created_at: Number(createdAt),
    revoked_at: revokedAt === null || revokedAt === '' ? null : Number(revokedAt)
  }
}

/** The clock argument of the scripts: '' asks for the server's TIME. */
function clock (nowMs: number | undefined): string {
  return nowMs === undefined ? '' : String(clockMs(nowMs))
}

function nowSeconds (): number {
  return Math.floor(Date.now() / 1000)
}
