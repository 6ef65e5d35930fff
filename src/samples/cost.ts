// What a planned request may cost, checked before any fetch: the distinct source units against
// the per-request limit, and those not yet cached against the account's remaining allowance.
import type { AccountStore } from '../accounts/index.js'
import type { Field } from '../field/index.js'
import { allowanceLeft, SourceError } from '../source/index.js'

/** More distinct source units than a request may use: the contract's 400. */
export class TooManyUnitsError extends Error {
  override readonly name = 'TooManyUnitsError'
  constructor (readonly needed: number, readonly limit: number) {
    super(`the points need ${needed} distinct source units; at most ${limit} are allowed per request`)
  }
}

export interface CostLimits {
  field: Pick<Field, 'isCached' | 'findCached'>
  store: Pick<AccountStore, 'allowance'>
  maxUnits: number
}

/**
 * More distinct units than allowed is TooManyUnitsError; more units not yet cached than the
 * account's remaining allowance is the source's daily_allowance_exhausted.
 */
export async function checkCost (unitKeys: readonly string[], limits: CostLimits, accountId: string): Promise<void> {
  if (unitKeys.length > limits.maxUnits) throw new TooManyUnitsError(unitKeys.length, limits.maxUnits)
  const unknown = unitKeys.filter((k) => !limits.field.isCached(k))
  if (unknown.length === 0) return
  // another process or instance sharing the cache directory may have fetched them: charged for nothing
  const found = await Promise.all(unknown.map(async (k) => await limits.field.findCached(k)))
  const uncached = found.filter((f) => !f).length
  if (uncached === 0) return
  const allowance = await limits.store.allowance(accountId)
  if (uncached > allowance.remaining) {
    throw new SourceError('daily_allowance_exhausted', {
      detail: `the points need ${uncached} source unit(s) not yet cached and ${allowanceLeft(allowance)}`,
      retryAfterSeconds: allowance.reset_after_seconds,
      accountId
    })
  }
}
