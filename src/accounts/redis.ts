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
// Its connection (bounded waits, errors translated, layout and persistence checks) is redis-link.ts.
import {
  type AccountLimits, type Admission, type AccountRecord, type AccountStore, type AllowanceState, type Authentication,
  type KeyPageRequest, type KeyRecord, type RateDecision, type Reservation, KeyLimitError, UnknownAccountError,
  UnknownCursorError
} from './store.js'
import {
  allowanceState, checkLimits, clockMs, gcra, type Gcra, limitsByCaller, type LimitsByCaller, PUBLIC_ACCOUNT,
  rateDecision, shareState
} from './limits.js'
import { hashSecret, looksLikeSecret, newId, newSecret, sameHash } from './secrets.js'
import { SCRIPTS, type Script } from './scripts.js'
import { KeyLayout } from './layout.js'
import type { RedisClient } from '../redis.js'
import { RedisLink, type StoreLogger } from './redis-link.js'

export type { StoreLogger }

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

/** Secret-hash lookups remembered in the process (cleared when full; each entry is about 150 bytes). */
const INDEX_LIMIT = 100_000

export class RedisStore implements AccountStore {
  readonly kind = 'redis'
  private readonly redis: RedisClient
  private readonly k: KeyLayout
  private readonly limits: Required<Omit<AccountLimits, 'public'>>
  private readonly byCaller: LimitsByCaller
  private readonly gcra: Gcra
  private readonly link: RedisLink
  /** Secret hash → its account and key id: never changes once made. */
  private readonly index = new Map<string, { accountId: string, keyId: string }>()

  constructor (options: RedisStoreOptions) {
    this.k = new KeyLayout(options.prefix)
    this.limits = checkLimits(options.limits)
    this.byCaller = limitsByCaller(options.limits)
    this.gcra = gcra(this.limits)
    this.link = new RedisLink({ url: options.url, k: this.k, timeoutMs: options.timeoutMs ?? 1000,
      logger: options.logger, onDataLost: () => this.index.clear() })
    this.redis = this.link.redis
  }

  /** What an operator should know about this store now (readiness shows it). */
  warnings (): string[] {
    return this.link.warnings()
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
    const share = this.byCaller.shareOf(accountId)
    if (share !== undefined) {
      const [own, shared, msToReset] = await this.script(SCRIPTS.shareAllowance, this.shareKeys(accountId),
        [clock(nowMs)]) as number[]
      return shareState(own, shared, share, msToReset)
    }
    const [used, msToReset] = await this.script(SCRIPTS.allowance, [this.k.allowance(accountId)],
      [clock(nowMs)]) as number[]
    return allowanceState(used, this.byCaller.dailyOf(accountId), msToReset)
  }

  async reserve (accountId: string, nowMs?: number): Promise<Reservation> {
    const share = this.byCaller.shareOf(accountId)
    let charged: number
    let state: AllowanceState
    if (share !== undefined) {
      let own: number, shared: number, msToReset: number
      [charged, own, shared, msToReset] = await this.script(SCRIPTS.shareReserve, this.shareKeys(accountId),
        [clock(nowMs), share.own, share.shared]) as number[]
      state = shareState(own, shared, share, msToReset)
    } else {
      let used: number, msToReset: number
      [charged, used, msToReset] = await this.script(SCRIPTS.reserve, [this.k.allowance(accountId)],
        [clock(nowMs), this.byCaller.dailyOf(accountId)]) as number[]
      state = allowanceState(used, this.byCaller.dailyOf(accountId), msToReset)
    }
    return charged === 1 ? { ok: true, state } : { ok: false, state, retry_after_seconds: state.reset_after_seconds }
  }

  /** A public client's share and the shared allowance: one slot, one script. */
  private shareKeys (client: string): string[] {
    return [this.k.publicShare(client, PUBLIC_ACCOUNT), this.k.allowance(PUBLIC_ACCOUNT)]
  }

  async takeRequest (accountId: string, nowMs?: number, cost = 1): Promise<RateDecision> {
    const g = this.byCaller.gcraOf(accountId)
    const [allowed, fullInUs, retryInUs] = await this.script(SCRIPTS.takeRequest, [this.k.rate(accountId)],
      [clock(nowMs), g.intervalUs, g.burst, cost]) as number[]
    return rateDecision(g, { allowed: allowed === 1, fullInUs, retryInUs })
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
    await this.link.close()
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

  private async script (s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    return await this.link.script(s, keys, args)
  }

  private run<T> (op: () => Promise<T>): Promise<T> {
    return this.link.run(op)
  }
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
