// Who may call a route (its `auth`): API-key and operator-token checks. Store outages become 503
// within a bounded time.
import { timingSafeEqual, createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { StoreUnavailableError, type AccountStore, type RateDecision } from '../accounts/index.js'
import type { RouteSpec } from '../contract/index.js'
import type { Config } from '../config/index.js'
import { HttpProblem, retryAfterSeconds, storeUnavailable } from './problem.js'
import type { AloftRequest, AppDeps } from './context.js'

/** Waits (bounded) for a token of the account's bucket after the admission found it empty (`refused`). */
export type RateWait = (accountId: string, refused: RateDecision) => Promise<RateDecision>

/**
 * The calling account of an `api_key` route: key and rate in one store call, or the key alone on a
 * route without a rate (admission cost 0). The store's promise itself, awaited once by the caller.
 */
export function callerAccount (
  route: RouteSpec, req: AloftRequest, res: ServerResponse, deps: AppDeps
): Promise<string> {
  return route.admissionCost > 0
    ? admit(req, res, deps, route.unauthorizedTitle)
    : authenticate(req, deps.store, route.unauthorizedTitle)
}

/** The bearer token of an operator route, and of /metrics when a metrics token is configured. */
export function checkToken (route: RouteSpec, req: AloftRequest, config: Config): void {
  if (route.auth === 'admin') {
    checkAdmin(req, config.adminToken as string)
  } else if (route.auth === 'metrics' && config.metricsToken !== undefined) {
    checkBearer(req, config.metricsToken, 'aloft-metrics', 'metrics token')
  }
}

/**
 * Runs a store call; an outage is a 503 service_unavailable. The stores bound their own time (the
 * Redis store's connect and command timeouts; the memory store never waits), so no timer per call.
 */
export async function withStore<T> (call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw storeUnavailable()
    throw err
  }
}

/** The key of the X-API-Key header or, on the Tawhiri paths, of the path (`/k/<key>/…`); '' for none. */
export function keyGiven (req: AloftRequest): string {
  const header = req.headers['x-api-key']
  const secret = (Array.isArray(header) ? header[0] : header) ?? req.pathKey ?? ''
  return secret.trim()
}

function presentedKey (req: AloftRequest, title: string | undefined): string {
  const secret = keyGiven(req)
  if (secret === '') {
    throw new HttpProblem('missing_api_key', {
      title,
      detail: req.dialect === 'tawhiri'
        ? 'Send your API key in the X-API-Key header, or put it in the path: /k/<your key>/tawhiri?…'
        : 'Send your API key in the X-API-Key header.'
    })
  }
  return secret
}

function refused (reason: 'invalid_api_key' | 'revoked_api_key', title: string | undefined): HttpProblem {
  return new HttpProblem(reason, {
    title,
    detail: reason === 'revoked_api_key' ? 'This API key has been revoked.' : 'This API key is not valid.'
  })
}

/** The account behind the request's X-API-Key, or the 401/503 problem (`title`: the route's 401 title). */
export async function authenticate (req: AloftRequest, store: AccountStore, title?: string): Promise<string> {
  const secret = presentedKey(req, title)
  const result = await withStore(() => store.authenticate(secret))
  if (!result.ok) throw refused(result.reason, title)
  req.accountId = result.account_id
  return result.account_id
}

/**
 * Key and request rate in one store call (docs/DESIGN.md §3's order: a bad key is a 401 before any
 * rate is taken). Sets the RateLimit-* headers; 429 when the bucket is empty (after `wait`, when
 * given, has waited its bounded time for a token).
 */
export async function admit (
  req: AloftRequest, res: ServerResponse, deps: AppDeps, title?: string, wait?: RateWait
): Promise<string> {
  const secret = presentedKey(req, title)
  const store = deps.store
  const admission = store.admitNow !== undefined
    ? store.admitNow(secret, deps.now?.())
    : await withStore(() => store.admit(secret, deps.now?.()))
  if (!admission.ok) throw refused(admission.reason, title)
  req.accountId = admission.account_id
  let rate = admission.rate
  if (!rate.allowed && wait !== undefined) rate = await wait(admission.account_id, rate)
  if (!rate.allowed) {
    throw rateLimited(rate, `This account may make ${deps.config.ratePerSecond} requests per second (bursts of ` +
      `${deps.config.rateBurst}).`)
  }
  rateHeaders(res, rate)
  return admission.account_id
}

/** The 429 of an empty rate bucket, its headers describing the bucket. */
export function rateLimited (rate: RateDecision, detail: string): HttpProblem {
  return new HttpProblem('rate_limited', {
    detail,
    headers: {
      'RateLimit-Limit': rate.limit,
      'RateLimit-Remaining': rate.remaining,
      'RateLimit-Reset': rate.reset_seconds,
      'Retry-After': retryAfterSeconds(rate.retry_after_seconds)
    }
  })
}

export function rateHeaders (res: ServerResponse, rate: RateDecision): void {
  res.setHeader('RateLimit-Limit', rate.limit)
  res.setHeader('RateLimit-Remaining', rate.remaining)
  res.setHeader('RateLimit-Reset', rate.reset_seconds)
}

function digest (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Checks `Authorization: Bearer <token>` against the operator token in constant time. */
export function checkAdmin (req: AloftRequest, token: string): void {
  checkBearer(req, token, 'aloft-admin', 'operator token')
}

/** Checks `Authorization: Bearer <token>` against `token` in constant time. */
export function checkBearer (req: AloftRequest, token: string, realm: string, what: string): void {
  const header = req.headers.authorization
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (match === null) {
    throw new HttpProblem('unauthorized', {
      detail: `Send the ${what} as Authorization: Bearer <token>.`,
      headers: { 'WWW-Authenticate': `Bearer realm="${realm}"` }
    })
  }
  // Hashing first gives equal lengths, so the comparison leaks nothing about the token.
  if (!timingSafeEqual(digest(match[1]), digest(token))) {
    throw new HttpProblem('forbidden', { detail: `The ${what} is not valid.` })
  }
}
