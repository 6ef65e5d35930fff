// The data path's refusals (source, field, profile, account store) as problems. Every route that
// reads GFS data maps its errors through here.
import { StoreUnavailableError } from '../accounts/index.js'
import { SourceError } from '../source/index.js'
import { PoolBusyError, UnusableUnitError } from '../field/index.js'
import { ProfileError } from '../profile/index.js'
import { MemoryBusyError } from '../samples/index.js'
import { HttpProblem, retryAfterSeconds, storeUnavailable } from './problem.js'

/** The problem for a data-path error; anything else is returned as it is (a 500 later). */
export function dataProblem (err: unknown): unknown {
  if (err instanceof SourceError) {
    const nearest = err.nearestTimes !== undefined && err.nearestTimes.length > 0 &&
      !err.detail.includes(err.nearestTimes[0])
      ? ` Nearest available times: ${err.nearestTimes.join(', ')}.`
      : ''
    const retry = err.retryAfterSeconds
    return new HttpProblem(err.code, {
      detail: `${err.detail}${nearest}`,
      headers: retry !== undefined ? { 'Retry-After': retryAfterSeconds(retry) } : undefined
    })
  }
  if (err instanceof ProfileError) return new HttpProblem(err.code, { detail: err.detail, coverage: err.coverage })
  if (err instanceof UnusableUnitError) return new HttpProblem(err.code, { detail: err.detail })
  if (err instanceof StoreUnavailableError) return storeUnavailable()
  if (err instanceof MemoryBusyError) {
    return new HttpProblem('service_unavailable', {
      detail: 'This instance\'s memory for large samples requests is held by others being computed or written; ' +
        'try again shortly (ALOFT_SAMPLES_MEMORY_MB).', headers: { 'Retry-After': 1 }
    })
  }
  if (err instanceof PoolBusyError) {
    return new HttpProblem('service_unavailable', {
      detail: 'This instance\'s workers are saturated; try again shortly.', headers: { 'Retry-After': 1 }
    })
  }
  return err
}
