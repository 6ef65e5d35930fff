// POST /v1/atmosphere/profile. The app has already authenticated, rate-limited and validated
// the body; the profile service does the data path. Here its refusals become problems.
import type { AtmosphereRequest } from '../../contract/index.js'
import { noDataPath } from '../problem.js'
import { dataProblem } from '../data-problem.js'
import type { AppDeps, Handler, Handlers } from '../context.js'

export function profileHandlers (deps: AppDeps): Handlers {
  return {
    get_atmospheric_profile: (async ({ body, accountId }) => {
      if (deps.profiles === undefined) throw noDataPath('profiles')
      try {
        const { response, sharable } = await deps.profiles.answer(body, accountId)
        return { body: response, sharable }
      } catch (err) {
        throw dataProblem(err)
      }
    }) satisfies Handler<AtmosphereRequest>
  }
}
