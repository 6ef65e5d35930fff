// Health, readiness, metrics, OpenAPI, problem pages and capabilities: the routes without a key.
import type { Health } from '../../contract/schemas.js'
import { StoreUnavailableError } from '../../accounts/store.js'
import { HttpProblem, storeUnavailable } from '../problem.js'
import type { AppDeps, Handler } from '../context.js'
import { buildCapabilities } from './capabilities.js'
import { isProblemCode, problemPage } from './pages.js'

export function metaHandlers (deps: AppDeps, openapi: string): Record<string, Handler> {
  return {
    healthz: () => ({ body: { status: 'ok' } satisfies Health }),

    readyz: async () => {
      try {
        await deps.store.ping()
      } catch (err) {
        if (err instanceof StoreUnavailableError) throw storeUnavailable('Not ready: the account store is unreachable.')
        throw err
      }
      const warnings = deps.store.warnings()
      const body: Health = { status: 'ok', checks: { account_store: 'ok' },
        ...(warnings.length > 0 ? { warnings } : {}) }
      return { body, headers: { 'Cache-Control': 'no-store' } }
    },

    metrics: async () => ({
      body: await deps.metrics.registry.metrics(),
      mediaType: deps.metrics.registry.contentType
    }),

    openapi: () => ({ body: openapi, mediaType: 'application/json' }),

    problem_page: ({ params }) => {
      if (!isProblemCode(params.code)) throw new HttpProblem('not_found', { detail: 'No such problem type.' })
      return { body: problemPage(params.code), mediaType: 'text/html; charset=utf-8' }
    },

    capabilities_v1_atmosphere_capabilities_get: async () => ({
      body: buildCapabilities(deps.config, deps.source === undefined ? undefined : await deps.source.describe()),
      headers: { 'Cache-Control': 'public, max-age=60' }
    })
  }
}
