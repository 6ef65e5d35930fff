// The embedded store for a single process: the same behaviour as the Redis store, held in Maps.
// Every method is synchronous inside, so each is atomic without locks. What Redis lets expire
// (a full rate bucket, a past day's counter) is swept here, so the maps stay bounded however many
// callers (public client addresses) pass by.
import {
  type AccountLimits, type AccountRecord, type AccountStore, type Admission, type AllowanceState, type Authentication,
  type KeyPageRequest, type KeyRecord, type RateDecision, type Reservation, KeyLimitError, UnknownAccountError,
  UnknownCursorError
} from './store.js'
import {
  allowanceState, checkLimits, clockMs, gcra, type Gcra, gcraStep, limitsByCaller, type LimitsByCaller, PUBLIC_ACCOUNT,
  rateDecision, shareAllows, shareState, utcDay
} from './limits.js'
import { hashSecret, looksLikeSecret, newId, newSecret } from './secrets.js'

interface StoredKey { record: KeyRecord, hash: string, seq: number }

/** One account's keys in creation order (newest last), and how many are live. */
interface AccountKeys { keys: StoredKey[], live: number, revoked: number }

export class MemoryStore implements AccountStore {
  readonly kind = 'memory'
  private readonly limits: Required<Omit<AccountLimits, 'public'>>
  private readonly byCaller: LimitsByCaller
  private readonly gcra: Gcra
  private readonly accounts = new Map<string, AccountRecord>()
  private readonly keys = new Map<string, StoredKey>()
  private readonly keyByHash = new Map<string, string>()
  /** Each account's keys: a listing reads only its own. */
  private readonly byAccount = new Map<string, AccountKeys>()
  /** Only today's counter is kept per account; an older day is replaced on first touch. */
  private readonly usedToday = new Map<string, { day: number, used: number }>()
  /** Theoretical arrival time per account, in microseconds. */
  private readonly tats = new Map<string, number>()
  /** Creation order, so listKeys is newest first even within one second. */
  private seq = 0
  /** When the maps were last swept, and the bucket count that calls for the next sweep. */
  private sweptAt = 0
  private sweepAbove = SWEEP_MIN_ENTRIES

  constructor (limits: AccountLimits) {
    this.limits = checkLimits(limits)
    this.byCaller = limitsByCaller(limits)
    this.gcra = gcra(this.limits)
  }

  async createAccount (name: string): Promise<AccountRecord> {
    const account = { id: newId('acct'), name, created_at: nowSeconds() }
    this.accounts.set(account.id, account)
    return { ...account }
  }

  async getAccount (id: string): Promise<AccountRecord | null> {
    const account = this.accounts.get(id)
    return account === undefined ? null : { ...account }
  }

  async createKey (accountId: string, name: string): Promise<{ record: KeyRecord, secret: string }> {
    if (!this.accounts.has(accountId)) throw new UnknownAccountError(accountId)
    let own = this.byAccount.get(accountId)
    if (own === undefined) this.byAccount.set(accountId, own = { keys: [], live: 0, revoked: 0 })
    if (own.live >= this.limits.maxKeys) throw new KeyLimitError(this.limits.maxKeys)
    const { secret, hash, prefix } = newSecret()
    const record: KeyRecord = { id: newId('key'), account_id: accountId, prefix, name, created_at: nowSeconds(),
      revoked_at: null }
    const stored = { record, hash, seq: ++this.seq }
    this.keys.set(record.id, stored)
    this.keyByHash.set(hash, record.id)
    own.keys.push(stored)
    own.live++
    return { record: { ...record }, secret }
  }

  async getKey (keyId: string): Promise<KeyRecord | null> {
    const key = this.keys.get(keyId)
    return key === undefined ? null : { ...key.record }
  }

  async listKeys (accountId: string, page?: KeyPageRequest): Promise<KeyRecord[]> {
    const keys = this.byAccount.get(accountId)?.keys ?? []
    let from = keys.length - 1
    if (page?.after !== undefined) {
      const at = keys.findIndex((k) => k.record.id === page.after)
      if (at < 0) throw new UnknownCursorError(`no key ${page.after} in this account's list`)
      from = at - 1
    }
    const out: KeyRecord[] = []
    for (let k = from; k >= 0 && out.length < (page?.limit ?? Infinity); k--) out.push({ ...keys[k].record })
    return out
  }

  async revokeKey (accountId: string, keyId: string): Promise<KeyRecord | null> {
    const key = this.keys.get(keyId)
    if (key === undefined || key.record.account_id !== accountId) return null
    if (key.record.revoked_at === null) {
      key.record.revoked_at = nowSeconds()
      const own = this.byAccount.get(accountId)!
      own.live--
      if (++own.revoked > this.limits.maxKeys) this.forgetOldestRevoked(own)
    }
    return { ...key.record }
  }

  private forgetOldestRevoked (own: AccountKeys): void {
    const at = own.keys.findIndex((k) => k.record.revoked_at !== null)
    const [gone] = own.keys.splice(at, 1)
    own.revoked--
    this.keys.delete(gone.record.id)
    this.keyByHash.delete(gone.hash)
  }

  async authenticate (secret: string): Promise<Authentication> {
    return this.authenticateNow(secret)
  }

  private authenticateNow (secret: string): Authentication {
    if (!looksLikeSecret(secret)) return { ok: false, reason: 'invalid_api_key' }
    // Found by its hash, the key's hash is equal: no second comparison (and the raw secret is never kept).
    const keyId = this.keyByHash.get(hashSecret(secret))
    const key = keyId === undefined ? undefined : this.keys.get(keyId)
    if (key === undefined) return { ok: false, reason: 'invalid_api_key' }
    if (key.record.revoked_at !== null) return { ok: false, reason: 'revoked_api_key' }
    return { ok: true, account_id: key.record.account_id, key_id: key.record.id }
  }

  async allowance (accountId: string, nowMs?: number): Promise<AllowanceState> {
    const { day, msToReset } = utcDay(clockMs(nowMs))
    const share = this.byCaller.shareOf(accountId)
    const used = this.usedOn(accountId, day)
    if (share !== undefined) return shareState(used, this.usedOn(PUBLIC_ACCOUNT, day), share, msToReset)
    return allowanceState(used, this.byCaller.dailyOf(accountId), msToReset)
  }

  async reserve (accountId: string, nowMs?: number): Promise<Reservation> {
    const { day, msToReset } = utcDay(clockMs(nowMs))
    const share = this.byCaller.shareOf(accountId)
    if (share !== undefined) {
      const own = this.usedOn(accountId, day)
      const shared = this.usedOn(PUBLIC_ACCOUNT, day)
      if (!shareAllows(own, shared, share)) {
        const state = shareState(own, shared, share, msToReset)
        return { ok: false, state, retry_after_seconds: state.reset_after_seconds }
      }
      this.usedToday.set(accountId, { day, used: own + 1 })
      this.usedToday.set(PUBLIC_ACCOUNT, { day, used: shared + 1 })
      return { ok: true, state: shareState(own + 1, shared + 1, share, msToReset) }
    }
    const limit = this.byCaller.dailyOf(accountId)
    const used = this.usedOn(accountId, day)
    if (used >= limit) {
      const state = allowanceState(used, limit, msToReset)
      return { ok: false, state, retry_after_seconds: state.reset_after_seconds }
    }
    this.usedToday.set(accountId, { day, used: used + 1 })
    return { ok: true, state: allowanceState(used + 1, limit, msToReset) }
  }

  /** Attempts charged to `accountId` on `day` (a counter of another day counts nothing). */
  private usedOn (accountId: string, day: number): number {
    const today = this.usedToday.get(accountId)
    return today?.day === day ? today.used : 0
  }

  async takeRequest (accountId: string, nowMs?: number, cost = 1): Promise<RateDecision> {
    return this.takeRequestNow(accountId, nowMs, cost)
  }

  private takeRequestNow (accountId: string, nowMs?: number, cost = 1): RateDecision {
    const nowMsFloor = clockMs(nowMs)
    const nowUs = nowMsFloor * 1000
    const g = this.byCaller.gcraOf(accountId)
    const step = gcraStep(g, this.tats.get(accountId) ?? null, nowUs, cost)
    if (step.allowed) {
      this.tats.set(accountId, step.tat)
      if (this.tats.size > this.sweepAbove || nowMsFloor - this.sweptAt >= SWEEP_EVERY_MS) this.sweep(nowMsFloor)
    }
    return rateDecision(g, step)
  }

  /**
   * Forgets what Redis would have let expire: rate buckets full again (an absent bucket is a full
   * one, so nothing changes for anyone) and counters of past days. Run when the buckets have
   * doubled since the last sweep, or a minute has passed: amortised O(1) per request.
   */
  private sweep (nowMs: number): void {
    const nowUs = nowMs * 1000
    for (const [id, tat] of this.tats) if (tat <= nowUs) this.tats.delete(id)
    const { day } = utcDay(nowMs)
    for (const [id, counter] of this.usedToday) if (counter.day < day) this.usedToday.delete(id)
    this.sweptAt = nowMs
    this.sweepAbove = Math.max(SWEEP_MIN_ENTRIES, 2 * this.tats.size)
  }

  /** How many rate buckets and day counters are held now (the bound the tests hold it to). */
  held (): { rateBuckets: number, dayCounters: number } {
    return { rateBuckets: this.tats.size, dayCounters: this.usedToday.size }
  }

  async admit (secret: string, nowMs?: number): Promise<Admission> {
    return this.admitNow(secret, nowMs)
  }

  admitNow (secret: string, nowMs?: number): Admission {
    const auth = this.authenticateNow(secret)
    return auth.ok ? { ...auth, rate: this.takeRequestNow(auth.account_id, nowMs) } : auth
  }

  async ping (): Promise<void> {}

  warnings (): string[] { return [] }

  async close (): Promise<void> {}
}

/** A sweep is due once the buckets exceed this many (and twice the last sweep's survivors)… */
const SWEEP_MIN_ENTRIES = 1024
/** …or once this long has passed since the last one. */
const SWEEP_EVERY_MS = 60_000

function nowSeconds (): number {
  return Math.floor(Date.now() / 1000)
}
