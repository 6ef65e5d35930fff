// The account store shared by several instances. Every update that reads before it writes is one
// Lua script, so concurrent instances cannot over-charge an allowance or a rate bucket.
//
// A profile request costs one round trip: `admit` (key lookup and rate bucket in one script).
//
// Key layout (P is the configured prefix, `aloft:` by default):
//   P account:{acct_id}        hash    id, name, created_at
//   P account:{acct_id}:keys   zset    member key id, score = P key_seq at creation (newest = highest)
//   P key:{key_id}             hash    id, account_id, prefix, name, created_at,
//                                      revoked_at ('' while live), secret_sha256
//   P key_hash:{sha256 hex}    string  key id (the lookup used by authenticate; kept after a revoke
//                                      so a revoked key is told apart from an unknown one)
//   P key_seq                  string  counter ordering key creation
//   P allowance:{acct_id}      hash    day (UTC days since the epoch), used; expires an hour after
//                                      that day ends, and a stale day is reset on first touch
//   P rate:{acct_id}           string  GCRA theoretical arrival time in µs; expires once the
//                                      bucket is full again (an absent key is a full bucket)
// The scripts are in src/accounts/lua/. Secrets are never stored, only their SHA-256. Nothing is
// cached in the process, so a revoke through any instance is seen by every instance on its next call.
//
// Clock: the allowance day and the rate bucket use the `nowMs` a caller passes (tests), else the
// Redis server's TIME inside the script, so all instances share one clock whatever their own
// clocks say. created_at / revoked_at are this process's clock (informational only).
//
// Availability: no offline queue, bounded connect and command timeouts, and a retry strategy that
// reconnects forever in the background. While a connection attempt is under way (at start-up, or
// a reconnect) a call waits at most timeoutMs for it; between attempts it fails at once. Either
// way it rejects with StoreUnavailableError, and once Redis is back the same store works again.
import { Redis } from 'ioredis'
import {
  type AccountLimits, type Admission, type AccountRecord, type AccountStore, type AllowanceState, type Authentication,
  type KeyRecord, type RateDecision, type Reservation, StoreUnavailableError, UnknownAccountError
} from './store.js'
import { allowanceState, checkLimits, clockMs, gcra, type Gcra, rateDecision } from './limits.js'
import { hashSecret, looksLikeSecret, newId, newSecret, sameHash } from './secrets.js'
import { SCRIPTS, type Script } from './scripts.js'

export interface StoreLogger { warn (obj: object, msg?: string): void }

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

export class RedisStore implements AccountStore {
  readonly kind = 'redis'
  private readonly redis: Redis
  private readonly p: string
  private readonly limits: AccountLimits
  private readonly gcra: Gcra
  private readonly timeoutMs: number
  private readonly logger: StoreLogger | undefined
  /** One shared wait for 'ready' while disconnected, so waiting calls add no listeners each. */
  private readyWait: Promise<void> | null = null
  private unreachable = false

  constructor (options: RedisStoreOptions) {
    this.p = options.prefix
    this.limits = checkLimits(options.limits)
    this.gcra = gcra(this.limits)
    this.timeoutMs = options.timeoutMs ?? 1000
    this.logger = options.logger
    this.redis = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A write whose reply was lost must not be replayed later (it could charge twice).
      autoResendUnfulfilledCommands: false,
      connectTimeout: this.timeoutMs,
      commandTimeout: this.timeoutMs,
      retryStrategy: (attempt) => Math.min(100 * attempt, 1000)
    })
    // Without an 'error' listener ioredis reports errors as unhandled. Each outage is logged
    // once, when first noticed (never the URL: it may carry a password).
    this.redis.on('error', (err: NodeJS.ErrnoException) => this.lost({ code: err.code, reason: err.message }))
    this.redis.on('reconnecting', () => this.lost({ reason: 'connection closed' }))
    this.redis.on('ready', () => {
      if (!this.unreachable) return
      this.unreachable = false
      this.logger?.warn({}, 'account store: Redis reachable again')
    })
  }

  async createAccount (name: string): Promise<AccountRecord> {
    const account: AccountRecord = { id: newId('acct'), name, created_at: nowSeconds() }
    await this.run(() => this.redis.hset(this.key('account', account.id), account))
    return account
  }

  async getAccount (id: string): Promise<AccountRecord | null> {
    const [aid, name, createdAt] = await this.run(() =>
      this.redis.hmget(this.key('account', id), 'id', 'name', 'created_at'))
    if (aid === null || name === null || createdAt === null) return null
    return { id: aid, name, created_at: Number(createdAt) }
  }

  async createKey (accountId: string, name: string): Promise<{ record: KeyRecord, secret: string }> {
    const { secret, hash, prefix } = newSecret()
    const record: KeyRecord = { id: newId('key'), account_id: accountId, prefix, name, created_at: nowSeconds(),
      revoked_at: null }
    const created = await this.script(SCRIPTS.createKey,
      [this.key('account', accountId), this.key('key', record.id), this.key('key_hash', hash),
        this.key('account', accountId) + ':keys', this.p + 'key_seq'],
      [record.id, accountId, prefix, name, record.created_at, hash])
    if (created !== 1) throw new UnknownAccountError(accountId)
    return { record, secret }
  }

  async getKey (keyId: string): Promise<KeyRecord | null> {
    return toKeyRecord(await this.run(() => this.redis.hmget(this.key('key', keyId), ...KEY_FIELDS)))
  }

  async listKeys (accountId: string): Promise<KeyRecord[]> {
    return await this.run(async () => {
      const ids = await this.redis.zrevrange(this.key('account', accountId) + ':keys', 0, -1)
      if (ids.length === 0) return []
      const pipeline = this.redis.pipeline()
      for (const id of ids) pipeline.hmget(this.key('key', id), ...KEY_FIELDS)
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
    const reply = await this.script(SCRIPTS.revokeKey, [this.key('key', keyId)],
      [accountId, nowSeconds(), ...KEY_FIELDS])
    return Array.isArray(reply) ? toKeyRecord(reply as Array<string | null>) : null
  }

  async authenticate (secret: string): Promise<Authentication> {
    if (!looksLikeSecret(secret)) return { ok: false, reason: 'invalid_api_key' }
    const hash = hashSecret(secret)
    return await this.run(async () => {
      const keyId = await this.redis.get(this.key('key_hash', hash))
      if (keyId === null) return { ok: false, reason: 'invalid_api_key' }
      const [accountId, revokedAt, stored] = await this.redis.hmget(this.key('key', keyId), 'account_id', 'revoked_at',
        'secret_sha256')
      if (accountId === null || stored === null || !sameHash(stored, hash)) {
        return { ok: false, reason: 'invalid_api_key' }
      }
      if (revokedAt !== '') return { ok: false, reason: 'revoked_api_key' }
      return { ok: true, account_id: accountId, key_id: keyId }
    })
  }

  async allowance (accountId: string, nowMs?: number): Promise<AllowanceState> {
    const [used, msToReset] = await this.script(SCRIPTS.allowance, [this.key('allowance', accountId)],
      [clock(nowMs)]) as number[]
    return allowanceState(used, this.limits.dailyAllowance, msToReset)
  }

  async reserve (accountId: string, nowMs?: number): Promise<Reservation> {
    const [charged, used, msToReset] = await this.script(SCRIPTS.reserve, [this.key('allowance', accountId)],
      [clock(nowMs), this.limits.dailyAllowance]) as number[]
    const state = allowanceState(used, this.limits.dailyAllowance, msToReset)
    return charged === 1 ? { ok: true, state } : { ok: false, state, retry_after_seconds: state.reset_after_seconds }
  }

  async takeRequest (accountId: string, nowMs?: number): Promise<RateDecision> {
    const [allowed, fullInUs, retryInUs] = await this.script(SCRIPTS.takeRequest, [this.key('rate', accountId)],
      [clock(nowMs), this.gcra.intervalUs, this.gcra.burst]) as number[]
    return rateDecision(this.gcra, { allowed: allowed === 1, fullInUs, retryInUs })
  }

  async admit (secret: string, nowMs?: number): Promise<Admission> {
    if (!looksLikeSecret(secret)) return { ok: false, reason: 'invalid_api_key' }
    const hash = hashSecret(secret)
    const reply = await this.script(SCRIPTS.admit, [this.key('key_hash', hash)],
      [clock(nowMs), this.gcra.intervalUs, this.gcra.burst, this.p, hash]) as Array<number | string>
    if (reply[0] === 0) return { ok: false, reason: 'invalid_api_key' }
    if (reply[0] === 1) return { ok: false, reason: 'revoked_api_key' }
    const [, keyId, accountId, allowed, fullInUs, retryInUs] = reply
    return {
      ok: true,
      key_id: String(keyId),
      account_id: String(accountId),
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

  private lost (detail: object): void {
    if (this.unreachable) return
    this.unreachable = true
    this.logger?.warn(detail, 'account store: Redis unreachable, reconnecting')
  }

  private key (type: string, id: string): string {
    return `${this.p}${type}:${id}`
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

  /** Every Redis call goes through here: bounded wait for a connection, errors translated. */
  private async run<T> (op: () => Promise<T>): Promise<T> {
    try {
      await this.connected()
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
