// The web explorer's files (built by `npm run build` into dist/web/ from web/): read once at start,
// gzipped once when first asked for, answered from memory with their content type, cache rule and a strict
// Content-Security-Policy (nothing inline, nothing from another origin but the operator's map
// tiles, ALOFT_MAP_TILES_URL, written into the page's meta tags and allowed as images).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tileOrigins, type MapTiles } from '../config/index.js'

/**
 * Scripts, styles, data and connections from this origin only; images too, and from the tile
 * server's origins when one is configured; no frames, no plugins, no forms elsewhere.
 */
export function explorerCsp (imageOrigins: readonly string[] = []): string {
  return "default-src 'none'; script-src 'self'; style-src 'self'; " +
    `img-src ${["'self'", 'data:', ...imageOrigins].join(' ')}; ` +
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

/** The page's policy without tiles. */
export const EXPLORER_CSP = explorerCsp()

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
  /** Compressed when first asked for: a process that never serves the page never pays for it. */
  readonly gzip: Buffer
  etag: string
  cacheControl: string
  /** The page's Content-Security-Policy (HTML only). */
  csp?: string
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
 * process creates (tests and benchmarks create many) shares one read and at most one gzip per file.
 */
const kept = new Map<string, { size: number, mtimeMs: number, asset: Asset }>()

function assetOf (path: string, type: string, cacheControl: string): Asset {
  const { size, mtimeMs } = statSync(path)
  const known = kept.get(path)
  if (known !== undefined && known.size === size && known.mtimeMs === mtimeMs) return known.asset
  const asset = assetFrom(readFileSync(path), type, cacheControl)
  kept.set(path, { size, mtimeMs, asset })
  return asset
}

function assetFrom (raw: Buffer, type: string, cacheControl: string, csp?: string): Asset {
  // level 9 over the map's data costs a start ~0.15 s of CPU, so it waits for the first client that takes gzip
  let gzip: Buffer | undefined
  return {
    type,
    raw,
    get gzip () { return (gzip ??= gzipSync(raw, { level: 9 })) },
    etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`,
    cacheControl,
    ...(type.startsWith('text/html') ? { csp: csp ?? EXPLORER_CSP } : {})
  }
}

const attribute = (text: string): string =>
  text.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!)

/** The tags web/index.html carries empty, for the service to fill in. */
const TILE_TAGS = {
  url: '<meta name="aloft-map-tiles" content="">',
  attribution: '<meta name="aloft-map-attribution" content="">'
}

/** The page with the operator's tiles in its meta tags, its ETag of those bytes, its CSP allowing them. */
function pageWithTiles (page: Asset, tiles: MapTiles): Asset {
  const html = page.raw.toString('utf8')
  if (!html.includes(TILE_TAGS.url) || !html.includes(TILE_TAGS.attribution)) {
    throw new Error('the built explorer page lacks the map tiles\' meta tags: run npm run build')
  }
  const filled = html
    .replace(TILE_TAGS.url, `<meta name="aloft-map-tiles" content="${attribute(tiles.url)}">`)
    .replace(TILE_TAGS.attribution, `<meta name="aloft-map-attribution" content="${attribute(tiles.attribution)}">`)
  return assetFrom(Buffer.from(filled), page.type, page.cacheControl, explorerCsp(tileOrigins(tiles.url)))
}

/** The built explorer in `dir`; with `tiles`, its page names them (ALOFT_MAP_TILES_URL). */
export function loadExplorer (dir = explorerDir(), tiles?: MapTiles): Explorer {
  const files = new Map<string, Asset>()
  if (!existsSync(`${dir}index.html`)) {
    return { files, missing: `the explorer is not built (no ${dir}index.html): run npm run build` }
  }
  for (const name of readdirSync(dir)) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)]
    if (type === undefined) continue
    const asset = assetOf(`${dir}${name}`, type, name === 'index.html' ? REVALIDATE : IMMUTABLE)
    if (name !== 'index.html') files.set(`/explorer/${name}`, asset)
    else files.set('/', tiles === undefined ? asset : pageWithTiles(asset, tiles))
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
    res.setHeader('Content-Security-Policy', asset.csp ?? EXPLORER_CSP)
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
