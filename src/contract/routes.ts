// The route table: one entry per operation. It drives the polka routes' validation, the 405
// `Allow` answers and /openapi.json, so the three cannot disagree.
import type { TSchema } from '@sinclair/typebox'
import {
  AtmosphereRequest, AtmosphereResponse, BetaUsage, Capabilities, CreatedAccount, CreatedKey,
  AccountInfo, Health, KeyInfo, KeyList, NewAccount, NewKey
} from './schemas.js'
import type { ProblemCodeName } from './codes.js'

export type Method = 'GET' | 'POST' | 'DELETE'
export type Security = 'none' | 'api_key' | 'admin'

export interface RouteSpec {
  method: Method
  /** polka pattern (`:param`). */
  path: string
  operationId: string
  summary: string
  tag: string
  security: Security
  body?: TSchema
  /** Success status → schema (JSON) or media type for non-JSON bodies. */
  success: { status: number, schema?: TSchema, mediaType?: string }
  /** Problem codes this operation may answer with, besides the generic ones. */
  problems: ProblemCodeName[]
}

const BODY_PROBLEMS: ProblemCodeName[] = ['invalid_request', 'invalid_json', 'unsupported_media_type', 'payload_too_large']
const KEY_PROBLEMS: ProblemCodeName[] = ['missing_api_key', 'invalid_api_key', 'revoked_api_key', 'service_unavailable']

export const ROUTES: readonly RouteSpec[] = [
  {
    method: 'POST', path: '/v1/atmosphere/profile', operationId: 'get_atmospheric_profile', tag: 'atmosphere',
    summary: 'Wind, temperature, pressure, humidity and density at 1–32 heights above a point',
    security: 'api_key', body: AtmosphereRequest,
    success: { status: 200, schema: AtmosphereResponse },
    problems: [...KEY_PROBLEMS, 'rate_limited', ...BODY_PROBLEMS, 'outside_source_coverage', 'daily_allowance_exhausted', 'source_busy', 'unusable_source_column', 'outside_vertical_range']
  },
  {
    method: 'GET', path: '/v1/atmosphere/capabilities', operationId: 'capabilities_v1_atmosphere_capabilities_get', tag: 'atmosphere',
    summary: 'Source, coverage, returned fields, limits and options (no key needed)',
    security: 'none', success: { status: 200, schema: Capabilities }, problems: []
  },
  {
    method: 'GET', path: '/v1/atmosphere/usage', operationId: 'usage_v1_atmosphere_usage_get', tag: 'atmosphere',
    summary: "Today's upstream attempts and remaining daily allowance of the calling account",
    security: 'api_key', success: { status: 200, schema: BetaUsage }, problems: KEY_PROBLEMS
  },
  {
    method: 'POST', path: '/v1/keys', operationId: 'create_key', tag: 'keys',
    summary: 'Create an API key for the calling account (the secret is shown once)',
    security: 'api_key', body: NewKey, success: { status: 201, schema: CreatedKey }, problems: [...KEY_PROBLEMS, ...BODY_PROBLEMS]
  },
  {
    method: 'GET', path: '/v1/keys', operationId: 'list_keys', tag: 'keys',
    summary: "The calling account's keys, newest first",
    security: 'api_key', success: { status: 200, schema: KeyList }, problems: KEY_PROBLEMS
  },
  {
    method: 'DELETE', path: '/v1/keys/:id', operationId: 'revoke_key', tag: 'keys',
    summary: 'Revoke one of the calling account\'s keys (idempotent)',
    security: 'api_key', success: { status: 200, schema: KeyInfo }, problems: [...KEY_PROBLEMS, 'not_found']
  },
  {
    method: 'GET', path: '/v1/account', operationId: 'get_account', tag: 'keys',
    summary: 'The calling account and its allowance',
    security: 'api_key', success: { status: 200, schema: AccountInfo }, problems: KEY_PROBLEMS
  },
  {
    method: 'POST', path: '/v1/admin/accounts', operationId: 'create_account', tag: 'admin',
    summary: 'Create an account and its first key (operator; exists only when an admin token is configured)',
    security: 'admin', body: NewAccount, success: { status: 201, schema: CreatedAccount },
    problems: ['unauthorized', 'forbidden', 'service_unavailable', ...BODY_PROBLEMS]
  },
  {
    method: 'GET', path: '/problems/:code', operationId: 'problem_page', tag: 'meta',
    summary: 'A short human-readable page for a problem type',
    security: 'none', success: { status: 200, mediaType: 'text/html' }, problems: ['not_found']
  },
  {
    method: 'GET', path: '/healthz', operationId: 'healthz', tag: 'meta',
    summary: 'The process is up', security: 'none', success: { status: 200, schema: Health }, problems: []
  },
  {
    method: 'GET', path: '/readyz', operationId: 'readyz', tag: 'meta',
    summary: 'Dependencies are reachable (503 otherwise)', security: 'none', success: { status: 200, schema: Health }, problems: ['service_unavailable']
  },
  {
    method: 'GET', path: '/metrics', operationId: 'metrics', tag: 'meta',
    summary: 'Prometheus metrics', security: 'none', success: { status: 200, mediaType: 'text/plain' }, problems: []
  },
  {
    method: 'GET', path: '/openapi.json', operationId: 'openapi', tag: 'meta',
    summary: 'This document', security: 'none', success: { status: 200, mediaType: 'application/json' }, problems: []
  }
]

export function routeById (operationId: string): RouteSpec {
  const route = ROUTES.find((r) => r.operationId === operationId)
  if (route === undefined) throw new Error(`no route with operationId ${operationId}`)
  return route
}
