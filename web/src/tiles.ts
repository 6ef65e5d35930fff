// The operator's raster tiles, as the service writes them into the page:
//   <meta name="aloft-map-tiles" content="https://tiles.example.org/{z}/{x}/{y}.png">
//   <meta name="aloft-map-attribution" content="© OpenStreetMap contributors https://www.openstreetmap.org/copyright">
// Absent or empty: no tile layer, the bundled Natural Earth map instead. The service fills them in
// from ALOFT_MAP_TILES_URL and ALOFT_MAP_TILES_ATTRIBUTION and allows the template's origins in
// the page's CSP img-src (docs/MAP-DATA.md).
import { tileTemplateProblem, type MapTiles } from '../../src/config/tile-template.js'

export type TileConfig = MapTiles

export type TileSetting = { kind: 'none' } | { kind: 'tiles', config: TileConfig } | { kind: 'unusable', why: string }

const meta = (name: string): string =>
  document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content.trim() ?? ''

/** What the page was told about tiles, checked by the rule the service checked it by at start. */
export function tileSetting (): TileSetting {
  const url = meta('aloft-map-tiles')
  if (url === '') return { kind: 'none' }
  const why = tileTemplateProblem(url)
  if (why !== undefined) return { kind: 'unusable', why }
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
