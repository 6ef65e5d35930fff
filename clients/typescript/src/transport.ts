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

/** Retry-After in seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds (value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text)
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
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

/** The answer's problem document, or null when the body is not one. */
async function problemOf (res: Response): Promise<Problem | null> {
  const text = await res.text()
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed !== null && typeof parsed === 'object' && 'title' in parsed && 'status' in parsed) {
      return parsed as Problem
    }
  } catch { /* not JSON: a proxy's page, say */ }
  return null
}

/** One attempt: the answer, or UnreachableError when none came (the caller's own abort passes through). */
async function attempt (options: TransportOptions, call: Call, url: string): Promise<Response> {
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(call.signal !== undefined ? [call.signal] : [])]
  try {
    return await options.fetch(url, {
      method: call.method,
      headers: headersOf(options, call),
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.any(signals)
    })
  } catch (err) {
    if (call.signal?.aborted === true) throw err
    throw new UnreachableError(url, err)
  }
}

/** The successful answer (or the operation's own non-2xx document); a ProblemError for any other. */
export async function send (options: TransportOptions, call: Call): Promise<Response> {
  const url = urlOf(options.baseUrl, call.path, call.query)
  for (let retries = 0; ; retries++) {
    const res = await attempt(options, call, url)
    if (res.ok || res.status === call.ownAnswer) return res
    const wait = retryAfterSeconds(res.headers.get('Retry-After'))
    const problem = await problemOf(res)
    const again = RETRIED.has(res.status) && retries < options.maxRetries &&
      (wait ?? 1) <= options.maxRetryWaitSeconds
    if (!again) throw new ProblemError(res.status, problem, wait, res.statusText)
    await sleep((wait ?? 1) * 1000, call.signal)
  }
}
