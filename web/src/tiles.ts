// The operator's raster tiles, as the service writes them into the page:
//   <meta name="aloft-map-tiles" content="https://tiles.example.org/{z}/{x}/{y}.png">
//   <meta name="aloft-map-attribution" content="© OpenStreetMap contributors https://www.openstreetmap.org/copyright">
// Absent or empty: no tile layer, the bundled Natural Earth map instead. The page's CSP must allow
// the template's origin in img-src (docs/MAP-DATA.md).

export interface TileConfig {
  /** A Leaflet URL template: {z}, {x}, {y}, optionally {s} (subdomains a, b, c) and {r}. */
  url: string
  /** Plain text shown in the map's corner; http(s) addresses in it become links. */
  attribution: string
}

export type TileSetting = { kind: 'none' } | { kind: 'tiles', config: TileConfig } | { kind: 'unusable', why: string }

const meta = (name: string): string =>
  document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content.trim() ?? ''

/** What the page was told about tiles, checked: an http(s) template with {z}, {x} and {y}. */
export function tileSetting (): TileSetting {
  const url = meta('aloft-map-tiles')
  if (url === '') return { kind: 'none' }
  let parsed: URL
  try {
    parsed = new URL(url.replaceAll(/\{[a-z]+\}/g, 'x'), document.baseURI)
  } catch {
    return { kind: 'unusable', why: 'it is not a URL' }
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { kind: 'unusable', why: 'it is not http(s)' }
  const missing = ['{z}', '{x}', '{y}'].filter((p) => !url.includes(p))
  if (missing.length > 0) return { kind: 'unusable', why: `it lacks ${missing.join(', ')}` }
  return { kind: 'tiles', config: { url, attribution: meta('aloft-map-attribution') } }
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The attribution as the HTML Leaflet's attribution control takes: the operator's text escaped
 * (configuration is not markup), each http(s) address turned into a link.
 */
export function attributionHtml (text: string): string {
  return text.split(/(https?:\/\/[^\s<>"']+)/).map((part, i) => i % 2 === 1
    ? `<a href="${escapeHtml(part)}" rel="noopener noreferrer">${escapeHtml(part.replace(/^https?:\/\//, ''))}</a>`
    : escapeHtml(part)).join('')
}
