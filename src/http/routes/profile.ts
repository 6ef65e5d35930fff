// POST /v1/atmosphere/profile. The app has already authenticated, rate-limited and validated
// the body; the data path (resolve → cache → fetch → decode → interpolate) plugs in here.
import type { AtmosphereRequest } from '../../contract/schemas.js'
import { HttpProblem } from '../problem.js'
import type { AppDeps, Handler } from '../context.js'

/** How long a caller should wait while this instance has no data path. */
const NO_DATA_RETRY_AFTER_SECONDS = 3600

export function profileHandlers (_deps: AppDeps): Record<string, Handler<any>> {
  return {
    get_atmospheric_profile: (() => {
      throw new HttpProblem('service_unavailable', {
        detail: 'This instance has no data path yet: profiles cannot be computed.',
        headers: { 'Retry-After': NO_DATA_RETRY_AFTER_SECONDS }
      })
    }) satisfies Handler<AtmosphereRequest>
  }
}
