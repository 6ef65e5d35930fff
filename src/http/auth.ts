// API-key and operator-token checks. Store outages become 503 within a bounded time.
import { timingSafeEqual, createHash } from 'node:crypto'
import { StoreUnavailableError, type AccountStore } from '../accounts/store.js'
import { PROFILE_UNAUTHORIZED_TITLE } from '../contract/codes.js'
import { HttpProblem } from './problem.js'
import type { AloftRequest } from './context.js'

/** A store call that may not take longer than this before the request answers 503. */
export const STORE_DEADLINE_MS = 2000
export const STORE_RETRY_AFTER_SECONDS = 5

/** Runs a store call; an outage (or a call past the deadline) is a 503 service_unavailable. */
export async function withStore<T> (call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError('account store did not answer in time')), STORE_DEADLINE_MS)
  })
  try {
    return await Promise.race([call(), deadline])
  } catch (err) {
    if (err instanceof StoreUnavailableError) {
      throw new HttpProblem('service_unavailable', {
        detail: 'The account store is unreachable; try again shortly.',
        headers: { 'Retry-After': STORE_RETRY_AFTER_SECONDS }
      })
    }
    throw err
  } finally {
    clearTimeout(timer)
  }
}

/** The account behind the request's X-API-Key, or the 401/503 problem. */
export async function authenticate (req: AloftRequest, store: AccountStore, isProfile: boolean): Promise<string> {
  const title = isProfile ? PROFILE_UNAUTHORIZED_TITLE : undefined
  const header = req.headers['x-api-key']
  const secret = Array.isArray(header) ? header[0] : header
  if (secret === undefined || secret.trim() === '') {
    throw new HttpProblem('missing_api_key', { title, detail: 'Send your API key in the X-API-Key header.' })
  }
  const result = await withStore(() => store.authenticate(secret.trim()))
  if (!result.ok) {
    throw new HttpProblem(result.reason, {
      title,
      detail: result.reason === 'revoked_api_key' ? 'This API key has been revoked.' : 'This API key is not valid.'
    })
  }
  req.accountId = result.account_id
  return result.account_id
}

function digest (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Checks `Authorization: Bearer <token>` against the operator token in constant time. */
export function checkAdmin (req: AloftRequest, token: string): void {
  const header = req.headers.authorization
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (match === null) {
    throw new HttpProblem('unauthorized', {
      detail: 'Send the operator token as Authorization: Bearer <token>.',
      headers: { 'WWW-Authenticate': 'Bearer realm="aloft-admin"' }
    })
  }
  // Hashing first gives equal lengths, so the comparison leaks nothing about the token.
  if (!timingSafeEqual(digest(match[1]), digest(token))) {
    throw new HttpProblem('forbidden', { detail: 'The operator token is not valid.' })
  }
}
