// The route table: one declarative entry per operation. The router (src/http/route-table.ts), the 405
// `Allow` answers, /openapi.json and the capabilities' limits are all built from it, so they
// cannot disagree. Handlers are looked up by operation id.
import type { TSchema } from '@sinclair/typebox'
import { AtmosphereRequest, AtmosphereResponse } from './profile.js'
import {
  AccountInfo, BetaUsage, CreatedAccount, CreatedKey, KeyInfo, KeyList, KeyListQuery, NewAccount, NewKey
} from './accounts.js'
import { Capabilities } from './capabilities.js'
import { Health } from './health.js'
import { PROFILE_UNAUTHORIZED_TITLE, type ProblemCodeName } from './codes.js'
import { LIMITS } from './limits.js'
import { ARROW_STREAM, SamplesRequest, SamplesResponse } from './samples.js'
import { TrajectoryRequest, TrajectoryResponse } from './trajectory.js'
import { DatasetCheck, Ruaumoko, RuaumokoQuery, TawhiriQuery } from './tawhiri.js'

export type Method = 'GET' | 'POST' | 'DELETE'
/**
 * Who may call a route: anyone, an API key, the operator token (ALOFT_ADMIN_TOKEN), or whoever holds
 * the metrics token when one is configured (ALOFT_METRICS_TOKEN; else anyone).
 */
export type Auth = 'none' | 'api_key' | 'admin' | 'metrics'

export interface RouteSpec {
  operationId: string
  method: Method
  /** polka pattern (`:param`). */
  path: string
  summary: string
  tag: string
  auth: Auth
  /**
   * Request-rate tokens an API-key call takes, checked with the key in one store call; 0 for
   * routes without a rate limit (the key alone is checked).
   */
  admissionCost: number
  /**
   * The request body: its JSON schema and the most bytes accepted (the default, when configurable).
   * `mediaTypes` beyond JSON: the handler reads and checks the body itself.
   */
  body?: { schema: TSchema, limitBytes: number, mediaTypes?: string[] }
  /** The query's fields (the handler reads and checks them; OpenAPI lists them as parameters). */
  query?: TSchema
  /**
   * Success status → schema (JSON) or media type for non-JSON bodies; `alternatives`: other media types by Accept.
   * `builtInOrder`: the handler builds its answers with the schema's properties in the schema's order (a test
   * holds it to that), so JSON.stringify writes them as the schema's serializer would.
   */
  success: { status: number, schema?: TSchema, mediaType?: string, alternatives?: string[], builtInOrder?: true }
  /** Problem codes this operation may answer with, besides internal_error. */
  problems: ProblemCodeName[]
  /** A non-success answer with a JSON body of the route's own (not a problem), e.g. readiness's 503. */
  otherAnswer?: { status: number, schema: TSchema, description: string }
  /**
   * Any origin may read it from a browser, and a preflight allows X-API-Key (never for key or
   * operator routes: those are no page's business).
   */
  cors: boolean
  /** The answer is written while it is computed, not serialised as one body. */
  streams: boolean
  /** Listed in /openapi.json. */
  openapi: boolean
  /** Title of every 401 on this route, when not the code's own. */
  unauthorizedTitle?: string
  /**
   * `tawhiri`: a path of Tawhiri's for the clients that speak it (docs/DESIGN.md §9): its errors in
   * Tawhiri's shape, the key also in the path (`/k/<key>/…`), callers without a key admitted in
   * public mode, and a burst waiting its turn (bounded) rather than refused.
   */
  dialect?: 'tawhiri'
}

type RouteEntry = Omit<RouteSpec, 'admissionCost' | 'cors' | 'streams' | 'openapi' | 'problems'> & Partial<RouteSpec>

/** One entry, with the defaults most routes share: no rate cost, no CORS, not streamed, documented. */
function route (entry: RouteEntry): RouteSpec {
  return { admissionCost: 0, cors: false, streams: false, openapi: true, problems: [], ...entry }
}

const BODY_PROBLEMS: ProblemCodeName[] = [
  'invalid_request', 'invalid_json', 'unsupported_media_type', 'payload_too_large'
]
const KEY_PROBLEMS: ProblemCodeName[] = ['missing_api_key', 'invalid_api_key', 'revoked_api_key', 'service_unavailable']
/** What reading GFS data can answer, in docs/DESIGN.md §3's order. */
const DATA_PROBLEMS: ProblemCodeName[] = [
  'outside_source_coverage', 'daily_allowance_exhausted', 'source_busy', 'unusable_source_column'
]
/** What a Tawhiri path can answer (in Tawhiri's error shape: codes.ts `tawhiri`). */
const TAWHIRI_PROBLEMS: ProblemCodeName[] = [...KEY_PROBLEMS, 'rate_limited', 'invalid_request', ...DATA_PROBLEMS,
  'flight_incomplete']
/** A Tawhiri path: any origin may read it, and a key may come in the path or, in public mode, not at all. */
function tawhiri (entry: Omit<RouteEntry, 'method' | 'tag' | 'auth'>): RouteSpec {
  return route({ method: 'GET', tag: 'tawhiri', auth: 'api_key', admissionCost: 1, cors: true, dialect: 'tawhiri',
    problems: TAWHIRI_PROBLEMS, ...entry })
}
const TAWHIRI_PREDICTION = {
  query: TawhiriQuery,
  // format=csv|kml: the fork's downloads
  success: { status: 200, schema: TrajectoryResponse, builtInOrder: true as const,
    alternatives: ['text/csv', 'application/vnd.google-earth.kml+xml'] }
}

const json = (schema: TSchema): RouteSpec['body'] => ({ schema, limitBytes: LIMITS.maxBodyBytes })

export const ROUTES: readonly RouteSpec[] = [
  route({
    method: 'POST', path: '/v1/atmosphere/profile', operationId: 'get_atmospheric_profile', tag: 'atmosphere',
    summary: 'Wind, temperature, pressure, humidity and density at 1–32 heights above a point',
    auth: 'api_key', admissionCost: 1, unauthorizedTitle: PROFILE_UNAUTHORIZED_TITLE, body: json(AtmosphereRequest),
    success: { status: 200, schema: AtmosphereResponse, builtInOrder: true },
    problems: [...KEY_PROBLEMS, 'rate_limited', ...BODY_PROBLEMS, ...DATA_PROBLEMS, 'outside_vertical_range']
  }),
  route({
    method: 'POST', path: '/v1/atmosphere/samples', operationId: 'get_atmospheric_samples', tag: 'atmosphere',
    summary: 'The atmosphere at many (latitude, longitude, time, height) points at once, interpolated in space, time ' +
      'and height; JSON or Apache Arrow in and out',
    auth: 'api_key', admissionCost: 1, streams: true,
    body: { schema: SamplesRequest, limitBytes: LIMITS.samplesMaxBodyBytes, mediaTypes: ['application/json',
      ARROW_STREAM] },
    success: { status: 200, schema: SamplesResponse, alternatives: [ARROW_STREAM] },
    problems: [...KEY_PROBLEMS, 'rate_limited', ...BODY_PROBLEMS, 'outside_source_coverage',
      'daily_allowance_exhausted', 'source_busy']
  }),
  route({
    method: 'POST', path: '/v1/atmosphere/trajectory', operationId: 'predict_trajectory', tag: 'atmosphere',
    summary: 'A balloon flight (ascent, burst, descent; or ascent and float), Tawhiri-compatible, with optional ' +
      'ensembles',
    auth: 'api_key', admissionCost: 1, body: json(TrajectoryRequest), cors: true,
    success: { status: 200, schema: TrajectoryResponse, builtInOrder: true },
    problems: [...KEY_PROBLEMS, 'rate_limited', ...BODY_PROBLEMS, ...DATA_PROBLEMS]
  }),
  route({
    method: 'GET', path: '/v1/atmosphere/trajectory', operationId: 'predict_trajectory_get', tag: 'atmosphere',
    summary: 'The same flight from query parameters (Tawhiri\'s GET; the ensemble as ensemble.members …)',
    auth: 'api_key', admissionCost: 1, query: TrajectoryRequest, cors: true,
    success: { status: 200, schema: TrajectoryResponse, builtInOrder: true },
    problems: [...KEY_PROBLEMS, 'rate_limited', 'invalid_request', ...DATA_PROBLEMS]
  }),
  tawhiri({
    path: '/api/v1/', operationId: 'tawhiri_predict', ...TAWHIRI_PREDICTION,
    summary: 'Tawhiri\'s prediction API (docs/api.rst): its parameters, answer and errors; format=csv|kml ' +
      'downloads; also under /k/{api_key}/'
  }),
  tawhiri({
    path: '/tawhiri', operationId: 'tawhiri_predict_sondehub', ...TAWHIRI_PREDICTION,
    summary: 'The same, at the SondeHub base path the SondeHub clients use; also under /k/{api_key}/'
  }),
  tawhiri({
    path: '/api/datasetcheck', operationId: 'tawhiri_dataset_check', success: { status: 200, schema: DatasetCheck },
    summary: 'The SondeHub fork\'s dataset check: the newest model run'
  }),
  tawhiri({
    path: '/api/ruaumoko/', operationId: 'tawhiri_ruaumoko', query: RuaumokoQuery,
    success: { status: 200, schema: Ruaumoko },
    summary: 'The SondeHub fork\'s ground altitude: the model terrain of the newest run'
  }),
  route({
    method: 'GET', path: '/v1/atmosphere/capabilities', tag: 'atmosphere',
    operationId: 'capabilities_v1_atmosphere_capabilities_get',
    summary: 'Source, coverage, returned fields, limits and options (no key needed)',
    auth: 'none', cors: true, success: { status: 200, schema: Capabilities }
  }),
  route({
    method: 'GET', path: '/v1/atmosphere/usage', operationId: 'usage_v1_atmosphere_usage_get', tag: 'atmosphere',
    summary: "Today's upstream attempts and remaining daily allowance of the calling account",
    auth: 'api_key', admissionCost: 1, success: { status: 200, schema: BetaUsage },
    problems: [...KEY_PROBLEMS, 'rate_limited']
  }),
  route({
    method: 'POST', path: '/v1/keys', operationId: 'create_key', tag: 'keys',
    summary: 'Create an API key for the calling account (the secret is shown once)',
    auth: 'api_key', admissionCost: 1, body: json(NewKey), success: { status: 201, schema: CreatedKey },
    problems: [...KEY_PROBLEMS, 'rate_limited', ...BODY_PROBLEMS, 'key_limit_reached']
  }),
  route({
    method: 'GET', path: '/v1/keys', operationId: 'list_keys', tag: 'keys',
    summary: "The calling account's keys, newest first, a page at a time",
    auth: 'api_key', admissionCost: 1, query: KeyListQuery, success: { status: 200, schema: KeyList },
    problems: [...KEY_PROBLEMS, 'rate_limited', 'invalid_request']
  }),
  route({
    method: 'DELETE', path: '/v1/keys/:id', operationId: 'revoke_key', tag: 'keys',
    summary: 'Revoke one of the calling account\'s keys (idempotent)',
    auth: 'api_key', admissionCost: 1, success: { status: 200, schema: KeyInfo },
    problems: [...KEY_PROBLEMS, 'rate_limited', 'not_found']
  }),
  route({
    method: 'GET', path: '/v1/account', operationId: 'get_account', tag: 'keys',
    summary: 'The calling account and its allowance',
    auth: 'api_key', admissionCost: 1, success: { status: 200, schema: AccountInfo },
    problems: [...KEY_PROBLEMS, 'rate_limited']
  }),
  route({
    method: 'POST', path: '/v1/admin/accounts', operationId: 'create_account', tag: 'admin',
    summary: 'Create an account and its first key (operator; exists only when an admin token is configured)',
    auth: 'admin', body: json(NewAccount), success: { status: 201, schema: CreatedAccount },
    problems: ['unauthorized', 'forbidden', 'service_unavailable', ...BODY_PROBLEMS]
  }),
  route({
    method: 'GET', path: '/', operationId: 'explorer', tag: 'explorer',
    summary: 'The web explorer: profiles and flights on a map, from this service', auth: 'none',
    success: { status: 200, mediaType: 'text/html' }, problems: ['not_found'], openapi: false
  }),
  route({
    method: 'GET', path: '/explorer/:file', operationId: 'explorer_asset', tag: 'explorer',
    summary: 'The explorer\'s scripts, styles and map data (content-hashed names)', auth: 'none',
    success: { status: 200, mediaType: 'application/octet-stream' }, problems: ['not_found'], openapi: false
  }),
  route({
    method: 'GET', path: '/problems/:code', operationId: 'problem_page', tag: 'meta',
    summary: 'A short human-readable page for a problem type',
    auth: 'none', cors: true, success: { status: 200, mediaType: 'text/html' }, problems: ['not_found']
  }),
  route({
    method: 'GET', path: '/healthz', operationId: 'healthz', tag: 'meta',
    summary: 'The process is up', auth: 'none', success: { status: 200, schema: Health }
  }),
  route({
    method: 'GET', path: '/readyz', operationId: 'readyz', tag: 'meta',
    summary: 'Every dependency is usable: the account store, the data source (listed), the raw cache directory ' +
      'and the worker pool, each one\'s state in `checks`',
    auth: 'none', success: { status: 200, schema: Health },
    otherAnswer: { status: 503, schema: Health,
      description: 'Not ready: `checks` says which dependency is unavailable and `reasons` why (`Retry-After`)' },
    problems: ['service_unavailable']
  }),
  route({
    method: 'GET', path: '/metrics', operationId: 'metrics', tag: 'meta',
    summary: 'Prometheus metrics (on ALOFT_METRICS_PORT instead when one is set; with ALOFT_METRICS_TOKEN, a bearer ' +
      'token)', auth: 'metrics', success: { status: 200, mediaType: 'text/plain' },
    problems: ['unauthorized', 'forbidden', 'service_unavailable']
  }),
  route({
    method: 'GET', path: '/openapi.json', operationId: 'openapi', tag: 'meta',
    summary: 'This document', auth: 'none', cors: true, success: { status: 200, mediaType: 'application/json' }
  })
]

export function routeById (operationId: string): RouteSpec {
  const found = ROUTES.find((r) => r.operationId === operationId)
  if (found === undefined) throw new Error(`no route with operationId ${operationId}`)
  return found
}

/** The `Allow` header of a 405: the methods a path takes, in one order wherever it is written. */
export function allowValue (methods: Iterable<Method>): string {
  return [...new Set(methods)].sort().join(', ')
}

/** Where a route is served: the service's own port, or the metrics port (ALOFT_METRICS_PORT). */
export type Listener = 'service' | 'metrics'

/**
 * The routes a listener serves: operator routes only when an operator token is configured; the
 * metrics route on the metrics port when one is set, else on the service's.
 */
export function servedRoutes (
  adminToken: string | undefined, options: { listener?: Listener, metricsPort?: number } = {}
): RouteSpec[] {
  const metricsApart = options.metricsPort !== undefined
  if (options.listener === 'metrics') return ROUTES.filter((r) => r.auth === 'metrics')
  return ROUTES.filter((r) =>
    (r.auth !== 'admin' || adminToken !== undefined) && !(r.auth === 'metrics' && metricsApart))
}
