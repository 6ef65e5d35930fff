// The web explorer's files (built by `npm run build` into dist/web/ from web/): read once at start,
// gzipped once, answered from memory with their content type, cache rule and a strict
// Content-Security-Policy (nothing inline, nothing from another origin).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Scripts, styles, data and connections from this origin only; no frames, no plugins, no forms elsewhere. */
export const EXPLORER_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json'
}
/** Hashed names never change content: a year, immutable. The page itself is revalidated every time. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'

interface Asset {
  type: string
  raw: Buffer
  gzip: Buffer
  etag: string
  cacheControl: string
}

export interface Explorer {
  /** The page and its assets by URL path; empty when the explorer was not built. */
  files: ReadonlyMap<string, Asset>
  /** Why there is no explorer, when there is none. */
  missing?: string
}

/** dist/web beside dist/src when compiled, and the same dist/web when run from the sources (tests). */
export function explorerDir (): string {
  const here = import.meta.url
  return fileURLToPath(new URL(here.includes('/dist/') ? '../../web/' : '../../dist/web/', here))
}

/**
 * Each file's asset as last read, while its size and modification time stay the same: every app a
 * process creates (tests and benchmarks create many) shares one read and one gzip per file.
 */
const kept = new Map<string, { size: number, mtimeMs: number, asset: Asset }>()

function assetOf (path: string, type: string, cacheControl: string): Asset {
  const { size, mtimeMs } = statSync(path)
  const known = kept.get(path)
  if (known !== undefined && known.size === size && known.mtimeMs === mtimeMs) return known.asset
  const raw = readFileSync(path)
  const asset: Asset = {
    type,
    raw,
    gzip: gzipSync(raw, { level: 9 }),
    etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`,
    cacheControl
  }
  kept.set(path, { size, mtimeMs, asset })
  return asset
}

export function loadExplorer (dir = explorerDir()): Explorer {
  const files = new Map<string, Asset>()
  if (!existsSync(`${dir}index.html`)) {
    return { files, missing: `the explorer is not built (no ${dir}index.html): run npm run build` }
  }
  for (const name of readdirSync(dir)) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)]
    if (type === undefined) continue
    const asset = assetOf(`${dir}${name}`, type, name === 'index.html' ? REVALIDATE : IMMUTABLE)
    files.set(name === 'index.html' ? '/' : `/explorer/${name}`, asset)
  }
  return { files }
}

/** Writes the asset (gzipped when the client takes it; 304 when its copy is current). */
export function sendAsset (req: IncomingMessage, res: ServerResponse, asset: Asset): void {
  res.setHeader('Content-Type', asset.type)
  res.setHeader('Cache-Control', asset.cacheControl)
  res.setHeader('ETag', asset.etag)
  res.setHeader('Vary', 'Accept-Encoding')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  if (asset.type.startsWith('text/html')) {
    res.setHeader('Content-Security-Policy', EXPLORER_CSP)
    res.setHeader('Referrer-Policy', 'no-referrer')
    res.setHeader('X-Frame-Options', 'DENY')
  }
  if (req.headers['if-none-match'] === asset.etag) {
    res.statusCode = 304
    res.end()
    return
  }
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
  const body = gzip ? asset.gzip : asset.raw
  if (gzip) res.setHeader('Content-Encoding', 'gzip')
  res.statusCode = 200
  res.setHeader('Content-Length', body.length)
  res.end(req.method === 'HEAD' ? undefined : body)
}
