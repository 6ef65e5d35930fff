// POST /v1/atmosphere/profile. The app has already authenticated, rate-limited and validated
// the body; the profile service does the data path. Here its refusals become problems.
import type { AtmosphereRequest } from '../../contract/index.js'
import { HttpProblem } from '../problem.js'
import { dataProblem } from '../data-problem.js'
import type { AppDeps, Handler, Handlers } from '../context.js'

/** How long a caller should wait while this instance has no data path. */
const NO_DATA_RETRY_AFTER_SECONDS = 3600

export function profileHandlers (deps: AppDeps): Handlers {
  return {
    get_atmospheric_profile: (async ({ body, accountId }) => {
      if (deps.profiles === undefined) {
        throw new HttpProblem('service_unavailable', {
          detail: 'This instance has no data path: profiles cannot be computed.',
          headers: { 'Retry-After': NO_DATA_RETRY_AFTER_SECONDS }
        })
      }
      try {
        const { response, sharable } = await deps.profiles.answer(body, accountId)
        return { body: response, sharable }
      } catch (err) {
        throw dataProblem(err)
      }
    }) satisfies Handler<AtmosphereRequest>
  }
}
