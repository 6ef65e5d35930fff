// The explorer's one way to the API: same origin, the key in a header, every failure turned into
// the problem the service answered (RFC 9457) or a plain sentence — never a blank page.
import type {
  AccountInfo, AtmosphereRequest, AtmosphereResponse, Capabilities
} from '../../src/contract/schemas.js'
import type { TrajectoryRequest, TrajectoryResponse } from '../../src/contract/trajectory.js'
import { apiKey } from './key.js'

export type { AccountInfo, AtmosphereRequest, AtmosphereResponse, Capabilities, TrajectoryRequest, TrajectoryResponse }

/** An answer other than 2xx, as the person reading the page should see it. */
export class ApiError extends Error {
  constructor (
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    /** The problem document, when the service sent one. */
    readonly problem: Record<string, unknown> | null
  ) {
    super(`${title}: ${detail}`)
  }
}

async function call<T> (method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal,
  key = apiKey()): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (key !== '') headers['X-API-Key'] = key
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal })
  } catch (err) {
    if (signal?.aborted === true) throw err
    throw new ApiError(0, 'The service did not answer', `${(err as Error).message}. Is aloft still running?`, null)
  }
  const text = await res.text()
  let parsed: unknown
  try { parsed = text === '' ? null : JSON.parse(text) } catch { parsed = null }
  if (res.ok && parsed !== null) return parsed as T
  if (parsed !== null && typeof parsed === 'object' && 'title' in parsed) {
    const p = parsed as Record<string, unknown>
    throw new ApiError(res.status, String(p.title), typeof p.detail === 'string' ? p.detail : '', p)
  }
  throw new ApiError(res.status, `HTTP ${res.status} ${res.statusText}`.trim(), text.slice(0, 300), null)
}

export const api = {
  capabilities: () => call<Capabilities>('GET', '/v1/atmosphere/capabilities'),
  /** The account a key belongs to: the one call that checks a key without spending data. */
  account: (key: string) => call<AccountInfo>('GET', '/v1/account', undefined, undefined, key),
  profile: (body: AtmosphereRequest, signal?: AbortSignal) =>
    call<AtmosphereResponse>('POST', '/v1/atmosphere/profile', body, signal),
  trajectory: (body: TrajectoryRequest, signal?: AbortSignal) =>
    call<TrajectoryResponse>('POST', '/v1/atmosphere/trajectory', body, signal)
}
