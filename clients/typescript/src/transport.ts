// One call to the service: the key or token in a header, a timeout per attempt, and the one retry
// rule — a 429 or 503 is asked again after its Retry-After, at most `maxRetries` times; everything
// else (and a wait longer than `maxRetryWaitSeconds`, such as a daily allowance's until midnight)
// is raised at once as a ProblemError.
import { ProblemError, UnreachableError, type Problem } from './problem.js'

export interface TransportOptions {
  baseUrl: string
  apiKey?: string | (() => string | undefined)
  adminToken?: string
  timeoutMs: number
  maxRetries: number
  maxRetryWaitSeconds: number
  fetch: typeof globalThis.fetch
}

export interface Call {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  query?: Record<string, string | number | undefined>
  body?: unknown
  /** Who calls: the account's key (default), the operator's token, or nobody. */
  auth?: 'key' | 'admin' | 'none'
  accept?: string
  signal?: AbortSignal
  /** A non-2xx status answered with the operation's own document rather than a problem (readiness's 503). */
  ownAnswer?: number
}

/** Statuses asked again after their Retry-After. */
const RETRIED = new Set([429, 503])

/** Retry-After in seconds: delta-seconds or an HTTP date (…GMT); null when absent or unreadable. */
export function retryAfterSeconds (value: string | null, now = Date.now()): number | null {
  const text = (value ?? '').trim()
  if (/^[0-9]+$/.test(text)) return Number(text)
  if (!/ GMT$/.test(text)) return null
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
}

/**
 * A body's first number JSON cannot carry (NaN, ±Infinity), as `path: value`; null when there is none.
 * JSON.stringify would send it as null, which some fields read as "the default" (ground elevation).
 */
export function nonFinite (value: unknown, path = 'body'): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path}: ${value}`
  if (value === null || typeof value !== 'object') return null
  for (const [k, v] of Object.entries(value)) {
    const found = nonFinite(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`)
    if (found !== null) return found
  }
  return null
}

/** A signal that aborts when any of these does (AbortSignal.any, which Node 20.0–20.2 and older browsers lack). */
function anySignal (signals: AbortSignal[]): AbortSignal {
  const controller = new AbortController()
  for (const signal of signals) {
    if (signal.aborted) { controller.abort(signal.reason); break }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true })
  }
  return controller.signal
}

function urlOf (baseUrl: string, path: string, query: Call['query']): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value))
  const qs = search.toString()
  return `${baseUrl.replace(/\/+$/, '')}${path}${qs === '' ? '' : `?${qs}`}`
}

function headersOf (options: TransportOptions, call: Call): Record<string, string> {
  const headers: Record<string, string> = { Accept: call.accept ?? 'application/json' }
  if (call.body !== undefined) headers['Content-Type'] = 'application/json'
  const auth = call.auth ?? 'key'
  const key = typeof options.apiKey === 'function' ? options.apiKey() : options.apiKey
  if (auth === 'key' && key !== undefined && key !== '') headers['X-API-Key'] = key
  if (auth === 'admin' && options.adminToken !== undefined) headers.Authorization = `Bearer ${options.adminToken}`
  return headers
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve, reject) => {
  if (signal?.aborted === true) { reject(signal.reason); return }
  const timer = setTimeout(() => { signal?.removeEventListener('abort', stop); resolve() }, ms)
  const stop = (): void => { clearTimeout(timer); reject(signal?.reason) }
  signal?.addEventListener('abort', stop, { once: true })
})

/** A body's problem document, or null when it is not one. */
function problemOf (text: string): Problem | null {
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed !== null && typeof parsed === 'object' && 'title' in parsed && 'status' in parsed) {
      return parsed as Problem
    }
  } catch { /* not JSON: a proxy's page, say */ }
  return null
}

/** An answer, its body read within the attempt's time. */
export interface Answer { res: Response, body: ArrayBuffer }

/** One attempt, body and all; UnreachableError when no whole answer came (the caller's own abort passes through). */
async function attempt (options: TransportOptions, call: Call, url: string): Promise<Answer> {
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(call.signal !== undefined ? [call.signal] : [])]
  try {
    const res = await options.fetch(url, {
      method: call.method,
      headers: headersOf(options, call),
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      // a redirect would carry the key to another address: raised, not followed
      redirect: 'manual',
      signal: anySignal(signals)
    })
    return { res, body: await res.arrayBuffer() }
  } catch (err) {
    if (call.signal?.aborted === true) throw call.signal.reason
    throw new UnreachableError(url, err)
  }
}

/** The successful answer (or the operation's own non-2xx document); a ProblemError for any other. */
export async function send (options: TransportOptions, call: Call): Promise<Answer> {
  const bad = nonFinite(call.body)
  if (bad !== null) throw new TypeError(`${bad} is not a number JSON can carry: give a finite number or leave it out`)
  const url = urlOf(options.baseUrl, call.path, call.query)
  for (let retries = 0; ; retries++) {
    const answer = await attempt(options, call, url)
    const { res } = answer
    if (res.ok || res.status === call.ownAnswer) return answer
    const wait = retryAfterSeconds(res.headers.get('Retry-After'))
    const text = new TextDecoder().decode(answer.body)
    const again = RETRIED.has(res.status) && retries < options.maxRetries &&
      (wait ?? 1) <= options.maxRetryWaitSeconds
    if (!again) throw new ProblemError(res.status, problemOf(text), wait, { statusText: res.statusText, excerpt: text })
    await sleep((wait ?? 1) * 1000, call.signal)
  }
}

/** A JSON answer's value; a 2xx that is not JSON (a proxy's page, say) is a ProblemError showing its start. */
export function jsonOf<T> ({ res, body }: Answer): T {
  const text = new TextDecoder().decode(body)
  try {
    return JSON.parse(text) as T
  } catch {
    throw new ProblemError(res.status, null, null, { statusText: `${res.statusText} (not JSON)`.trim(), excerpt: text })
  }
}
