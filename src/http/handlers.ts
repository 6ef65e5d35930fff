// Every route's own handler, by operation id (one module per group in routes/), and the routes
// whose answers to exact repeats of a body are kept.
import { buildOpenApi, type RouteSpec } from '../contract/index.js'
import type { ResponseCache } from '../profile/index.js'
import type { AppDeps, Handlers } from './context.js'
import { accountHandlers } from './routes/accounts.js'
import { explorerHandlers } from './routes/explorer.js'
import { explorerDir, loadExplorer } from './explorer.js'
import { metaHandlers } from './routes/meta.js'
import { profileHandlers } from './routes/profile.js'
import { samplesHandlers } from './routes/samples.js'
import { trajectoryHandlers } from './routes/trajectory.js'
import { tawhiriHandlers } from './tawhiri/index.js'

/** @param routes the routes served, which /openapi.json lists */
export function routeHandlers (deps: AppDeps, routes: readonly RouteSpec[]): Handlers {
  const openapi = JSON.stringify(buildOpenApi(routes))
  return {
    ...metaHandlers(deps, openapi),
    ...accountHandlers(deps),
    ...profileHandlers(deps),
    ...samplesHandlers(deps),
    ...trajectoryHandlers(deps),
    ...tawhiriHandlers(deps),
    ...explorerHandlers(loadExplorer(explorerDir(), deps.config.mapTiles))
  }
}

/** The caches of answers to exact repeats, by operation id (the profile service's own). */
export function repeatCaches (deps: AppDeps): Record<string, ResponseCache | undefined> {
  return { get_atmospheric_profile: deps.profiles?.responses }
}
