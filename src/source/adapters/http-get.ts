// One upstream GET through the throttle, with a timeout, classified for the outcome table.
import { UpstreamFailure } from '../errors.js'
import type { Throttle } from './throttle.js'
import type { ByteRange } from '../unit.js'

export interface HttpOptions {
  throttle: Throttle
  timeoutMs: number
  /** Appended to every request (NOAA asks automated clients to identify themselves). */
  userAgent?: string
}

/** Seconds from a Retry-After header (delta-seconds or HTTP date); undefined if absent or bad. */
function retryAfter (value: string | null): number | undefined {
  if (value === null) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - Date.now()) / 1000))
}

/**
 * What one unit's download carries into each of its requests: the deadline no request may outlive,
 * and the allowance charge, made when the first request actually leaves for the upstream (never
 * for requests that gave up while waiting in the limiter).
 */
export interface Errand {
  /** Epoch ms. */
  deadline: number
  /** Charges the attempt once (later calls resolve at once); rejects when the allowance is spent. */
  charge: () => Promise<void>
}

/** Discovery (listings, probes): free, bounded only by the request timeout. */
function freeErrand (options: HttpOptions): Errand {
  return { deadline: Date.now() + options.timeoutMs, charge: async () => {} }
}

type Outcome = { ok: true, bytes: Uint8Array } | { ok: false, err: unknown }

/**
 * GET `url` (a byte range of it when given) through the limiter. 404/403 → missing; 429 →
 * throttled; 5xx → server; no answer in time (or the errand's deadline passed while waiting) →
 * timeout; a broken connection → network; anything else not 2xx → unusable. Errors of the errand's
 * charge (allowance spent, store down) pass through as they are.
 */
export async function httpGet (
  url: string, options: HttpOptions, range?: ByteRange, errand?: Errand
): Promise<Uint8Array> {
  const job = errand ?? freeErrand(options)
  let outcome: Outcome
  try {
    // The job's own errors come back as a value: only a rejection of schedule() is the limiter's.
    outcome = await options.throttle.schedule(async (): Promise<Outcome> => {
      try {
        const left = job.deadline - Date.now()
        if (left <= 0) {
          throw new UpstreamFailure('timeout', 'the deadline passed while waiting for the upstream limiter')
        }
        await job.charge()
        return { ok: true, bytes: await get(url, options, range, Math.min(options.timeoutMs, left)) }
      } catch (err) {
        return { ok: false, err }
      }
    }, options.timeoutMs)
  } catch (err) {
    // the limiter itself failed (its Redis is unreachable): as good as no connection upstream
    throw new UpstreamFailure('network', `upstream limiter unavailable: ${(err as Error).message}`)
  }
  if (!outcome.ok) throw outcome.err
  return outcome.bytes
}

async function get (
  url: string, options: HttpOptions, range: ByteRange | undefined, timeoutMs: number
): Promise<Uint8Array> {
  const headers: Record<string, string> = { 'user-agent': options.userAgent ?? 'aloft (GFS profile service)' }
  if (range !== undefined) headers.range = `bytes=${range.start}-${range.end ?? ''}`
  const where = url
  let res: Response
  let body: ArrayBuffer
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' })
    body = await res.arrayBuffer()
  } catch (err) {
    const e = err as Error
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      throw new UpstreamFailure('timeout', `no complete answer within ${timeoutMs} ms`, { where })
    }
    throw new UpstreamFailure('network', `the connection failed: ${e.message}`, { where })
  }
  const s = res.status
  if (s === 404 || s === 403) throw new UpstreamFailure('missing', `upstream answered ${s}`, { where })
  if (s === 429 || s >= 500) {
    throw new UpstreamFailure(s === 429 ? 'throttled' : 'server', `upstream answered ${s}`,
      { where, retryAfterSeconds: retryAfter(res.headers.get('retry-after')) })
  }
  if (s !== 200 && s !== 206) throw new UpstreamFailure('unusable', `upstream answered ${s}`, { where })
  let bytes = new Uint8Array(body)
  if (range !== undefined && s === 200) {
    // a server that ignores Range sends the whole object: cut the range out ourselves
    bytes = bytes.subarray(range.start, range.end === null ? undefined : range.end + 1)
  }
  if (range !== undefined && range.end !== null && bytes.length !== range.end - range.start + 1) {
    throw new UpstreamFailure('unusable', `bytes ${range.start}-${range.end}: got ${bytes.length} bytes`, { where })
  }
  return bytes
}

export async function httpText (url: string, options: HttpOptions): Promise<string> {
  return new TextDecoder().decode(await httpGet(url, options))
}

/** Join a base URL (with or without a trailing slash) and a relative path. */
export function joinUrl (base: string, path: string): string {
  return base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '')
}
