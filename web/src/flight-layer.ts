// A predicted flight on the map: each stage as a line with a vertex per trajectory point (no
// simplification, no clipping, so what is drawn is what the API answered), its named points
// marked (flightMarks: a landing only when it landed), an ensemble's landings as dots and the
// ring holding 95 % of them.
import * as L from 'leaflet'
import type { TrajectoryResponse } from './api.js'
import { east, flightMarks, type MarkKind, spreadShown } from '../../src/trajectory/formats.js'
import { latLon, num, utc } from './format.js'

type Ensemble = NonNullable<TrajectoryResponse['ensemble']>

const at = (p: { latitude: number, longitude: number }): L.LatLngTuple => [p.latitude, east(p.longitude)]

/** The tooltip a pointer shows and the name a screen reader reads, on a drawn SVG element. */
function titled (layer: L.Path, text: string, data: Record<string, string> = {}): void {
  const el = layer.getElement()
  if (el === undefined) return
  const title = document.createElementNS('http://www.w3.org/2000/svg', 'title')
  title.textContent = text
  el.appendChild(title)
  for (const [k, v] of Object.entries(data)) el.setAttribute(`data-${k}`, v)
}

/** Each marked point's glyph: only a landing is a cross, where the data ran out a hollow square. */
const GLYPHS: Record<MarkKind, string> = {
  launch: '●', burst: '▲', float_start: '▸', landed: '✕', float_ended: '◆', left_source_coverage: '□',
  unusable_source_column: '□'
}

/** A glyph marker that lets clicks through to the map; its class is the point's kind. */
function mark (kind: MarkKind, where: L.LatLngTuple, label: string): L.Marker {
  const el = document.createElement('span')
  el.className = `mark ${kind}`
  el.title = label
  el.setAttribute('role', 'img')
  el.setAttribute('aria-label', label)
  el.textContent = GLYPHS[kind]
  const icon = L.divIcon({ className: 'mark-icon', html: el, iconSize: [16, 16] })
  return L.marker(where, { icon, interactive: false, keyboard: false })
}

/** Draws `answer` into `group` (emptied first) and returns the points it covers, for the view. */
export function drawFlight (group: L.LayerGroup, answer: TrajectoryResponse): L.LatLngBounds {
  group.clearLayers()
  const bounds = L.latLngBounds([])
  if (answer.ensemble !== undefined) drawEnsemble(group, answer.ensemble, bounds)
  for (const stage of answer.prediction) {
    const line = L.polyline(stage.trajectory.map(at), {
      className: `path ${stage.stage}`, smoothFactor: 0, noClip: true, interactive: false
    }).addTo(group)
    titled(line, `${stage.stage}: ${stage.trajectory.length} points`,
      { stage: stage.stage, points: String(stage.trajectory.length) })
    bounds.extend(line.getBounds())
  }
  for (const m of flightMarks(answer)) {
    const p = m.point
    mark(m.kind, at(p), `${m.name} ${latLon(p.latitude, p.longitude)}, ${num(p.altitude, 0)} m, ${utc(p.datetime)}`)
      .addTo(group)
  }
  return bounds
}

function drawEnsemble (group: L.LayerGroup, ensemble: Ensemble, bounds: L.LatLngBounds): void {
  const spread = ensemble.landing
  // the ring only over enough landings to mean a spread, their count beside it
  if (spread !== null && spreadShown(ensemble)) {
    const ring = L.circle([spread.mean_latitude, east(spread.mean_longitude)], {
      radius: Math.max(spread.p95_distance_km, 0.01) * 1000, className: 'spread', interactive: false
    }).addTo(group)
    const label = `95 % of ${spread.members_landed} landings within ${num(spread.p95_distance_km, 1)} km of their mean`
    titled(ring, label, { landed: String(spread.members_landed) })
    L.tooltip({ permanent: true, direction: 'top', className: 'spread-label', interactive: false })
      .setLatLng([ring.getBounds().getNorth(), east(spread.mean_longitude)])
      .setContent(`${spread.members_landed} landed · 95 % within ${num(spread.p95_distance_km, 1)} km`)
      .addTo(group)
    bounds.extend(ring.getBounds())
  }
  for (const m of ensemble.members) {
    if (m.landing === null) continue
    const dot = L.circleMarker(at(m.landing), { radius: 3, className: 'member-landing', interactive: false })
      .addTo(group)
    titled(dot, `member landing ${latLon(m.landing.latitude, m.landing.longitude)}`)
    bounds.extend(dot.getLatLng())
  }
}
