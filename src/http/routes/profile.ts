// POST /v1/atmosphere/profile. The app has already authenticated, rate-limited and validated
// the body; the profile service does the data path. Here its refusals become problems.
import { StoreUnavailableError } from '../../accounts/store.js'
import type { AtmosphereRequest } from '../../contract/schemas.js'
import { SourceError } from '../../source/index.js'
import { ProfileError } from '../../profile/service.js'
import { HttpProblem, retryAfterSeconds } from '../problem.js'
import { STORE_RETRY_AFTER_SECONDS } from '../auth.js'
import type { AppDeps, Handler } from '../context.js'

/** How long a caller should wait while this instance has no data path. */
const NO_DATA_RETRY_AFTER_SECONDS = 3600

export function toProblem (err: unknown): unknown {
  if (err instanceof SourceError) {
    const nearest = err.nearestTimes !== undefined && err.nearestTimes.length > 0 && !err.detail.includes(err.nearestTimes[0])
      ? ` Nearest available times: ${err.nearestTimes.join(', ')}.`
      : ''
    return new HttpProblem(err.code, {
      detail: `${err.detail}${nearest}`,
      headers: err.retryAfterSeconds !== undefined ? { 'Retry-After': retryAfterSeconds(err.retryAfterSeconds) } : undefined
    })
  }
  if (err instanceof ProfileError) return new HttpProblem(err.code, { detail: err.detail, coverage: err.coverage })
  if (err instanceof StoreUnavailableError) {
    return new HttpProblem('service_unavailable', { detail: 'The account store is unreachable; try again shortly.', headers: { 'Retry-After': STORE_RETRY_AFTER_SECONDS } })
  }
  return err
}

export function profileHandlers (deps: AppDeps): Record<string, Handler<any>> {
  return {
    get_atmospheric_profile: (async ({ body, accountId }) => {
      if (deps.profiles === undefined) {
        throw new HttpProblem('service_unavailable', {
          detail: 'This instance has no data path: profiles cannot be computed.',
          headers: { 'Retry-After': NO_DATA_RETRY_AFTER_SECONDS }
        })
      }
      try {
        return { body: await deps.profiles.profile(body, accountId) }
      } catch (err) {
        throw toProblem(err)
      }
    }) satisfies Handler<AtmosphereRequest>
  }
}
