// The source room's one error type. The HTTP layer maps `code` to its Problem (status, title,
// Retry-After); nothing here knows about HTTP.
import type { AllowanceState } from '../accounts/index.js'

export type SourceErrorCode =
  | 'outside_source_coverage' // 404: no valid time within the offset, or the point rounds off a regional grid
  | 'daily_allowance_exhausted' // 429: a fetch is needed, the account has no attempts left, nothing cached serves
  | 'source_busy' // 503: upstream kept failing (429/5xx/timeouts) or our fetch queue is full
  | 'unusable_source_column' // 502: the bytes are not GRIB2, lack fields, or are for another (run, step)

export interface SourceErrorOptions {
  detail: string
  /** Seconds, integer >= 1; set for daily_allowance_exhausted and source_busy. */
  retryAfterSeconds?: number
  /** outside_source_coverage: the nearest valid times the source holds (ISO 8601 UTC). */
  nearestTimes?: string[]
  /** daily_allowance_exhausted: the account that is out of attempts. */
  accountId?: string
}

export class SourceError extends Error {
  override readonly name = 'SourceError'
  readonly detail: string
  readonly retryAfterSeconds?: number
  readonly nearestTimes?: string[]
  readonly accountId?: string

  constructor (readonly code: SourceErrorCode, options: SourceErrorOptions) {
    super(`${code}: ${options.detail}`)
    this.detail = options.detail
    if (options.retryAfterSeconds !== undefined) {
      this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds))
    }
    if (options.nearestTimes !== undefined) this.nearestTimes = options.nearestTimes
    if (options.accountId !== undefined) this.accountId = options.accountId
  }
}

/**
 * Whose day of upstream attempts is spent, in words: the account's, or for a caller without a key
 * (docs/DESIGN.md §10) its own share or the allowance all such callers share.
 */
export function whoseAllowance (state: AllowanceState): string {
  if (state.shared === undefined) return `the account's ${state.limit} upstream attempts`
  if (state.shared.remaining === 0 && state.upstream_attempts < state.limit) {
    return `the ${state.shared.limit} upstream attempts all callers without an API key share`
  }
  return `this client's ${state.limit} upstream attempts (each caller without an API key has its own share of ` +
    `the ${state.shared.limit} they share; an API key has its own day)`
}

/** How many upstream attempts are left today, and whose (whoseAllowance). */
export function allowanceLeft (state: AllowanceState): string {
  return state.shared === undefined
    ? `the account has ${state.remaining} of its ${state.limit} upstream attempts left today`
    : `${state.remaining} of ${whoseAllowance(state)} are left today`
}

/** What went wrong with one upstream request, before it becomes a SourceError. */
export type FailureKind = 'missing' | 'throttled' | 'server' | 'timeout' | 'network' | 'unusable'

/**
 * Internal: one failed upstream request or response, classified for the outcome table. `detail`
 * never names a host, URL or path (it may reach a caller); `where` does, and goes to the logs
 * with `message`.
 */
export class UpstreamFailure extends Error {
  override readonly name = 'UpstreamFailure'
  readonly retryAfterSeconds?: number
  readonly where?: string
  constructor (readonly kind: FailureKind, readonly detail: string,
    options: { where?: string, retryAfterSeconds?: number } = {}) {
    super(options.where === undefined ? detail : `${options.where}: ${detail}`)
    if (options.where !== undefined) this.where = options.where
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
  }
}
