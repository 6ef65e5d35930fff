// One upstream GET through the throttle, with a timeout, classified for the outcome table.
import { UpstreamFailure } from './errors.js'
import type { Throttle } from './throttle.js'

export interface HttpOptions {
  throttle: Throttle
  timeoutMs: number
  /** Appended to every request (NOAA asks automated clients to identify themselves). */
  userAgent?: string
}

export interface ByteRange {
  start: number
  /** Inclusive end; null: to the end of the object. */
  end: number | null
}

/** Seconds from a Retry-After header (delta-seconds or HTTP date); undefined if absent or bad. */
function retryAfter (value: string | null): number | undefined {
  if (value === null) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - Date.now()) / 1000))
}

/**
 * GET `url` (a byte range of it when given). 404/403 → missing; 429 → throttled; 5xx → server;
 * no answer in time → timeout; a broken connection → network; anything else not 2xx → unusable.
 */
export async function httpGet (url: string, options: HttpOptions, range?: ByteRange): Promise<Uint8Array> {
  try {
    return await options.throttle.schedule(async () => await get(url, options, range))
  } catch (err) {
    if (err instanceof UpstreamFailure) throw err
    // the limiter itself failed (its Redis is unreachable): as good as no connection upstream
    throw new UpstreamFailure('network', `upstream limiter unavailable: ${(err as Error).message}`)
  }
}

async function get (url: string, options: HttpOptions, range?: ByteRange): Promise<Uint8Array> {
  const headers: Record<string, string> = { 'user-agent': options.userAgent ?? 'aloft (GFS profile service)' }
  if (range !== undefined) headers.range = `bytes=${range.start}-${range.end ?? ''}`
  let res: Response
  let body: ArrayBuffer
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs), redirect: 'follow' })
    body = await res.arrayBuffer()
  } catch (err) {
    const e = err as Error
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      throw new UpstreamFailure('timeout', `no complete answer within ${options.timeoutMs} ms from ${url}`)
    }
    throw new UpstreamFailure('network', `connection to ${url} failed: ${e.message}`)
  }
  const s = res.status
  if (s === 404 || s === 403) throw new UpstreamFailure('missing', `${url} answered ${s}`)
  if (s === 429) {
    throw new UpstreamFailure('throttled', `${url} answered 429`, retryAfter(res.headers.get('retry-after')))
  }
  if (s >= 500) throw new UpstreamFailure('server', `${url} answered ${s}`, retryAfter(res.headers.get('retry-after')))
  if (s !== 200 && s !== 206) throw new UpstreamFailure('unusable', `${url} answered ${s}`)
  let bytes = new Uint8Array(body)
  if (range !== undefined && s === 200) {
    // a server that ignores Range sends the whole object: cut the range out ourselves
    bytes = bytes.subarray(range.start, range.end === null ? undefined : range.end + 1)
  }
  if (range !== undefined && range.end !== null && bytes.length !== range.end - range.start + 1) {
    throw new UpstreamFailure('unusable', `${url} bytes ${range.start}-${range.end}: got ${bytes.length} bytes`)
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
