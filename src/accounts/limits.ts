// The arithmetic of the daily allowance and the request rate limit, shared by both stores.
// The Redis store runs the same steps inside its Lua scripts (redis.ts) and hands the raw
// numbers back here, so both stores turn them into the same records.
import type { AccountLimits, AllowanceState, PublicLimits, RateDecision } from './store.js'

export const DEFAULT_LIMITS: Readonly<Required<Omit<AccountLimits, 'public'>>> = Object.freeze({
  dailyAllowance: 1000,
  ratePerSecond: 20,
  rateBurst: 40,
  maxKeys: 100
})

const DAY_MS = 86_400_000

/** The allowance account all public callers of the Tawhiri paths share (docs/DESIGN.md §10). */
export const PUBLIC_ACCOUNT = 'public'
/**
 * A public caller (one client address): this prefix and a digest of the address. It names the
 * caller's rate bucket, its daily share inside PUBLIC_ACCOUNT's allowance and its in-flight share.
 */
export const PUBLIC_RATE_PREFIX = 'public:'

export function isPublicCaller (accountId: string): boolean {
  return accountId === PUBLIC_ACCOUNT || accountId.startsWith(PUBLIC_RATE_PREFIX)
}

/** One public client (not the shared account itself). */
export function isPublicClient (accountId: string): boolean {
  return accountId.startsWith(PUBLIC_RATE_PREFIX)
}

/** A public client's daily allowance: its own share, inside the one all public callers share. */
export interface DailyShare { own: number, shared: number }

/** The limits an account id is held to: its own, or the public callers' when it is one of theirs. */
export interface LimitsByCaller {
  dailyOf: (accountId: string) => number
  /** A public client's share and the shared cap it lies in; undefined for anyone else. */
  shareOf: (accountId: string) => DailyShare | undefined
  gcraOf: (accountId: string) => Gcra
}

export function limitsByCaller (limits: AccountLimits): LimitsByCaller {
  const own = checkLimits(limits)
  const open = limits.public === undefined ? undefined : checkPublicLimits(limits.public)
  const ownGcra = gcra(own)
  const openGcra = open === undefined ? ownGcra : gcra(open)
  const share = open === undefined ? undefined : { own: open.dailyAllowancePerClient, shared: open.dailyAllowance }
  return {
    dailyOf: (id) => open === undefined || !isPublicCaller(id)
      ? own.dailyAllowance
      : isPublicClient(id) ? open.dailyAllowancePerClient : open.dailyAllowance,
    shareOf: (id) => share !== undefined && isPublicClient(id) ? share : undefined,
    gcraOf: (id) => isPublicCaller(id) ? openGcra : ownGcra
  }
}

function checkPublicLimits (limits: PublicLimits): Required<PublicLimits> {
  const { dailyAllowancePerClient = limits.dailyAllowance } = limits
  if (!Number.isSafeInteger(dailyAllowancePerClient) || dailyAllowancePerClient < 0) {
    throw new RangeError(`dailyAllowancePerClient must be an integer >= 0, got ${dailyAllowancePerClient}`)
  }
  return { ...checkLimits(limits), dailyAllowancePerClient }
}

/** Throws on limits that would make the arithmetic below meaningless. */
export function checkLimits (limits: Omit<AccountLimits, 'public'>): Required<Omit<AccountLimits, 'public'>> {
  const { dailyAllowance, ratePerSecond, rateBurst, maxKeys = DEFAULT_LIMITS.maxKeys } = limits
  if (!Number.isSafeInteger(dailyAllowance) || dailyAllowance < 0) {
    throw new RangeError(`dailyAllowance must be an integer >= 0, got ${dailyAllowance}`)
  }
  if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0 || ratePerSecond > 1e6) {
    throw new RangeError(`ratePerSecond must be in (0, 1e6], got ${ratePerSecond}`)
  }
  if (!Number.isSafeInteger(rateBurst) || rateBurst < 1) {
    throw new RangeError(`rateBurst must be an integer >= 1, got ${rateBurst}`)
  }
  if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
    throw new RangeError(`maxKeys must be an integer >= 1, got ${maxKeys}`)
  }
  return { dailyAllowance, ratePerSecond, rateBurst, maxKeys }
}

/** An injected clock is floored to whole milliseconds so both stores see the same instant. */
export function clockMs (nowMs: number | undefined): number {
  if (nowMs === undefined) return Date.now()
  if (!Number.isFinite(nowMs)) throw new RangeError(`nowMs must be finite, got ${nowMs}`)
  return Math.floor(nowMs)
}

/** The UTC day number (days since the epoch) and the milliseconds left until it ends. */
export function utcDay (nowMs: number): { day: number, msToReset: number } {
  const day = Math.floor(nowMs / DAY_MS)
  return { day, msToReset: (day + 1) * DAY_MS - nowMs }
}

export function allowanceState (used: number, limit: number, msToReset: number): AllowanceState {
  return {
    upstream_attempts: used,
    limit,
    remaining: Math.max(0, limit - used),
    // msToReset >= 1 because the day ends strictly after now; ceil keeps it >= 1 s.
    reset_after_seconds: Math.ceil(msToReset / 1000)
  }
}

/**
 * A public client's day: its own attempts against its share, what is left being the lesser of
 * its share's rest and the shared cap's rest.
 */
export function shareState (ownUsed: number, sharedUsed: number, share: DailyShare, msToReset: number): AllowanceState {
  const state = allowanceState(ownUsed, share.own, msToReset)
  const shared = Math.max(0, share.shared - sharedUsed)
  return { ...state, remaining: Math.min(state.remaining, shared), shared: { limit: share.shared, remaining: shared } }
}

/** Whether one more attempt fits a public client's share and the shared cap. */
export function shareAllows (ownUsed: number, sharedUsed: number, share: DailyShare): boolean {
  return ownUsed < share.own && sharedUsed < share.shared
}

/**
 * GCRA in integer microseconds (exact in a double, and in Redis's Lua, up to 2^53 µs ≈ year 2255).
 * `tat` is the theoretical arrival time: the bucket is full when tat <= now, and a request is
 * allowed when, after adding one emission interval, tat stays within burst × interval of now.
 */
export interface Gcra { intervalUs: number, burst: number }

export function gcra (limits: Omit<AccountLimits, 'public' | 'dailyAllowance'>): Gcra {
  return { intervalUs: Math.max(1, Math.round(1e6 / limits.ratePerSecond)), burst: limits.rateBurst }
}

/** What one request does to the bucket; `tat` is the value to store when allowed. */
export interface GcraStep { allowed: boolean, tat: number, fullInUs: number, retryInUs: number }

export function gcraStep (g: Gcra, storedTat: number | null, nowUs: number, cost = 1): GcraStep {
  const tat = storedTat === null || storedTat < nowUs ? nowUs : storedTat
  const next = tat + g.intervalUs * cost
  const allowAt = next - g.burst * g.intervalUs
  if (nowUs < allowAt) return { allowed: false, tat, fullInUs: tat - nowUs, retryInUs: allowAt - nowUs }
  return { allowed: true, tat: next, fullInUs: next - nowUs, retryInUs: 0 }
}

export function rateDecision (g: Gcra, step: Omit<GcraStep, 'tat'>): RateDecision {
  // Requests still possible now: how many intervals fit between the bucket's level and burst
  // (0 when refused, since then fullInUs > (burst - 1) × interval).
  return {
    allowed: step.allowed,
    limit: g.burst,
    remaining: Math.max(0, Math.floor((g.burst * g.intervalUs - step.fullInUs) / g.intervalUs)),
    reset_seconds: Math.ceil(step.fullInUs / 1e6),
    retry_after_seconds: step.allowed ? 0 : Math.max(1, Math.ceil(step.retryInUs / 1e6))
  }
}
