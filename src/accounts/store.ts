// The one interface every account store implements (Redis for several instances, memory for
// one process). Handlers and the fetcher see only this; no Redis command leaves src/accounts.

/** An account: owns keys and one daily upstream allowance. Times are Unix epoch seconds. */
export interface AccountRecord {
  id: string
  name: string
  created_at: number
}

/** A key as stored: never the secret, only its display prefix. */
export interface KeyRecord {
  id: string
  account_id: string
  prefix: string
  name: string
  created_at: number
  revoked_at: number | null
}

export type Authentication =
  | { ok: true, account_id: string, key_id: string }
  | { ok: false, reason: 'invalid_api_key' | 'revoked_api_key' }

/** The profile route's admission: the key's verdict and, for a live key, the rate decision. */
export type Admission =
  | { ok: true, account_id: string, key_id: string, rate: RateDecision }
  | { ok: false, reason: 'invalid_api_key' | 'revoked_api_key' }

/** Today's allowance for one account (UTC day). */
export interface AllowanceState {
  upstream_attempts: number
  limit: number
  remaining: number
  /** Seconds to the next 00:00 UTC, always >= 1. */
  reset_after_seconds: number
  /**
   * A public client's: the allowance all public callers share (its limit and what is left of it);
   * `limit` above is then the client's own share and `remaining` the lesser of the two rests.
   */
  shared?: { limit: number, remaining: number }
}

export type Reservation =
  | { ok: true, state: AllowanceState }
  | { ok: false, state: AllowanceState, retry_after_seconds: number }

/** Outcome of one request against the per-account request rate limit. */
export interface RateDecision {
  allowed: boolean
  /** The burst size (RateLimit-Limit). */
  limit: number
  /** Requests that could be made right now after this one (RateLimit-Remaining). */
  remaining: number
  /** Seconds until the bucket is full again (RateLimit-Reset), integer >= 0. */
  reset_seconds: number
  /** When refused: integer seconds >= 1 until one request is allowed again; else 0. */
  retry_after_seconds: number
}

/** What public callers may use, together (the allowance) and each (the rate, a share of the allowance). */
export interface PublicLimits {
  /** Upstream attempts per UTC day all public callers share. */
  dailyAllowance: number
  /** Each public client's own attempts per UTC day, inside the shared ones; default: the shared number. */
  dailyAllowancePerClient?: number
  ratePerSecond: number
  rateBurst: number
}

export interface AccountLimits {
  dailyAllowance: number
  ratePerSecond: number
  rateBurst: number
  /**
   * Live keys an account may hold; as many revoked ones are kept (newest first) to be listed and
   * told apart, older revoked keys are forgotten. Default 100.
   */
  maxKeys?: number
  /**
   * Public callers of the Tawhiri paths (docs/DESIGN.md §10): the daily allowance they share (as
   * account PUBLIC_ACCOUNT), each client's share of it and the rate of each client's bucket (ids
   * PUBLIC_RATE_PREFIX + a digest of its address). Absent: no public callers.
   */
  public?: PublicLimits
}

/** One page of an account's keys, newest first. */
export interface KeyPageRequest {
  /** At most this many. */
  limit: number
  /** The keys after this key id (the last of the previous page). */
  after?: string
}

/** Thrown (or rejected with) when the backing store cannot be reached in bounded time. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError'
}

/** Rejected with when an account already holds its most live keys. */
export class KeyLimitError extends Error {
  override readonly name = 'KeyLimitError'
  constructor (readonly limit: number) {
    super(`the account holds ${limit} live keys, the most allowed`)
  }
}

/** Rejected with when a page asks for the keys after a key the account does not (or no longer) list. */
export class UnknownCursorError extends Error {
  override readonly name = 'UnknownCursorError'
}

/** Rejected with when a key is created for an account that does not exist. */
export class UnknownAccountError extends Error {
  override readonly name = 'UnknownAccountError'
  constructor (readonly accountId: string) {
    super(`no account ${accountId}`)
  }
}

/**
 * Every call settles in bounded time (an outage rejects with StoreUnavailableError): callers set
 * no deadline of their own.
 */
export interface AccountStore {
  readonly kind: 'redis' | 'memory'
  createAccount (name: string): Promise<AccountRecord>
  getAccount (id: string): Promise<AccountRecord | null>
  /**
   * Returns the record and the secret; the secret is never stored nor returned again.
   * Rejects with UnknownAccountError when the account does not exist, KeyLimitError when it holds
   * its most live keys.
   */
  createKey (accountId: string, name: string): Promise<{ record: KeyRecord, secret: string }>
  /** One key by id, whatever its account (the operator CLI revokes by key id alone). */
  getKey (keyId: string): Promise<KeyRecord | null>
  /**
   * Newest first: every key kept, or one page (UnknownCursorError when `after` is not listed). Reads
   * only this account's keys.
   */
  listKeys (accountId: string, page?: KeyPageRequest): Promise<KeyRecord[]>
  /**
   * Idempotent; null when the key does not exist or belongs to another account. Revoked keys
   * beyond the most kept are forgotten, oldest first.
   */
  revokeKey (accountId: string, keyId: string): Promise<KeyRecord | null>
  authenticate (secret: string): Promise<Authentication>
  /** Today's counter, without charging. `nowMs` is injectable for the day boundary. */
  allowance (accountId: string, nowMs?: number): Promise<AllowanceState>
  /**
   * Atomically charges one upstream attempt if any remain today. A public client's attempt is
   * charged to its own share and to the shared allowance together, or to neither.
   */
  reserve (accountId: string, nowMs?: number): Promise<Reservation>
  /**
   * Atomically takes `cost` requests (default 1) from the account's rate bucket: all or none. A
   * cost above the burst is never allowed; callers cap it.
   */
  takeRequest (accountId: string, nowMs?: number, cost?: number): Promise<RateDecision>
  /**
   * authenticate, then for a live key takeRequest on its account, as one store call (one round
   * trip on Redis): what every profile request does first.
   */
  admit (secret: string, nowMs?: number): Promise<Admission>
  /** The same, answered at once, by a store with nothing remote to wait for (no promise per request). */
  admitNow?: (secret: string, nowMs?: number) => Admission
  /** Resolves when the store answers; rejects with StoreUnavailableError otherwise. */
  ping (): Promise<void>
  /** What an operator should know about the store now (e.g. a Redis that persists nothing). */
  warnings (): string[]
  close (): Promise<void>
}
