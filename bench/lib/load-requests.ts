// A load run's requests made ready before it starts: each parsed once (host, port, path, headers,
// body bytes), drawn by weight in a fixed pseudo-random order, and how many a run may start.
import type { LoadSpec } from './load-spec.js'
import { freshProfileBodies } from './bodies.js'
import { random } from './random.js'

export interface Prepared {
  kind: string
  method: string
  host: string
  port: number
  path: string
  headers: Record<string, string>
  body: Buffer | null
  /** Makes a new body per request, when the mix asks for never-repeating bodies. */
  fresh: (() => string) | null
}

/** The most requests an open loop makes before it starts (see bench/lib/load-run.ts `made`). */
export const MAKE_AHEAD_MAX = 200_000

export function prepare (spec: LoadSpec): Prepared[] {
  return spec.requests.map((r) => {
    const u = new URL(r.url)
    const body = r.body === undefined ? null : Buffer.from(r.body)
    const headers: Record<string, string> = { ...(r.headers ?? {}) }
    if (body !== null) headers['content-length'] = String(body.length)
    return {
      kind: r.kind,
      method: r.method,
      host: u.hostname,
      port: Number(u.port),
      path: u.pathname + u.search,
      headers,
      body,
      fresh: r.freshProfileSeed === undefined ? null : freshProfileBodies(r.freshProfileSeed)
    }
  })
}

/** Draws the index of the next request by the mix's weights, always in the same order. */
export function picker (spec: LoadSpec): () => number {
  const weights = spec.requests.map((r) => r.weight ?? 1)
  const total = weights.reduce((a, b) => a + b, 0)
  const rnd = random(0x5eed)
  return () => {
    let x = rnd() * total
    for (let k = 0; k < weights.length; k++) { x -= weights[k]; if (x < 0) return k }
    return weights.length - 1
  }
}

/** The most requests a run starts: the rate's count (open), or 20 million, unless the spec bounds it. */
export function requestCount (spec: LoadSpec): number {
  return spec.maxRequests ?? (spec.mode === 'open'
    ? Math.ceil(spec.rate! * (spec.seconds + (spec.warmupSeconds ?? 0))) + 1
    : 20_000_000)
}
