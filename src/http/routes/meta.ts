// Health, readiness, metrics, OpenAPI, problem pages and capabilities: the routes without a key.
import type { Health } from '../../contract/index.js'
import { HostMetricsUnavailableError } from '../../metrics.js'
import { HttpProblem } from '../problem.js'
import { NOT_READY_RETRY_AFTER_SECONDS, sharedReadiness } from '../readiness.js'
import type { AppDeps, Handler, Reply } from '../context.js'
import { buildCapabilities } from './capabilities.js'
import { isProblemCode, problemPage } from './pages.js'

/** How long a scraper waits when the host's metrics could not be gathered (its primary was silent). */
const HOST_METRICS_RETRY_AFTER_SECONDS = 5

/** A problem page is plain HTML: nothing runs, loads or frames it. */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer'
}

export function metaHandlers (deps: AppDeps, openapi: string): Record<string, Handler> {
  const readiness = sharedReadiness(deps)
  return {
    healthz: () => ({ body: { status: 'ok' } satisfies Health }),

    readyz: async (): Promise<Reply> => {
      const { ready, body } = await readiness()
      if (ready) return { body, headers: { 'Cache-Control': 'no-store' } }
      const headers = { 'Cache-Control': 'no-store', 'Retry-After': NOT_READY_RETRY_AFTER_SECONDS }
      return { status: 503, body, headers }
    },

    metrics: async () => {
      try {
        return { body: await deps.metrics.exposition(), mediaType: deps.metrics.registry.contentType }
      } catch (err) {
        if (!(err instanceof HostMetricsUnavailableError)) throw err
        throw new HttpProblem('service_unavailable', { detail: `${err.message}; try again shortly.`,
          headers: { 'Retry-After': HOST_METRICS_RETRY_AFTER_SECONDS } })
      }
    },

    openapi: () => ({ body: openapi, mediaType: 'application/json' }),

    problem_page: ({ params }) => {
      if (!isProblemCode(params.code)) throw new HttpProblem('not_found', { detail: 'No such problem type.' })
      return { body: problemPage(params.code), mediaType: 'text/html; charset=utf-8', headers: PAGE_HEADERS }
    },

    capabilities_v1_atmosphere_capabilities_get: async () => ({
      body: buildCapabilities(deps.config, deps.source === undefined ? undefined : await deps.source.describe()),
      headers: { 'Cache-Control': 'public, max-age=60' }
    })
  }
}
