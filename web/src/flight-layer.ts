// A predicted flight on the map: each stage as a line with a vertex per trajectory point (no
// simplification, no clipping, so what is drawn is what the API answered), launch, burst and
// landing marked, an ensemble's landings as dots and the ring holding 95 % of them.
import * as L from 'leaflet'
import type { TrajectoryResponse } from './api.js'
import { east } from '../../src/trajectory/formats.js'
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

/** A glyph marker (▲ burst, ✕ landing, ● launch) that lets clicks through to the map. */
function mark (kind: 'launch' | 'burst' | 'landing', where: L.LatLngTuple, label: string): L.Marker {
  const el = document.createElement('span')
  el.className = `mark ${kind}`
  el.title = label
  el.setAttribute('role', 'img')
  el.setAttribute('aria-label', label)
  el.textContent = kind === 'burst' ? '▲' : kind === 'landing' ? '✕' : '●'
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
  const stages = answer.prediction
  const first = stages[0].trajectory[0]
  mark('launch', at(first), `launch ${latLon(first.latitude, first.longitude)}, ${utc(first.datetime)}`).addTo(group)
  const ascent = stages.find((s) => s.stage === 'ascent')
  if (ascent !== undefined && stages.length > 1) {
    const b = ascent.trajectory[ascent.trajectory.length - 1]
    mark('burst', at(b), `burst at ${num(b.altitude, 0)} m, ${utc(b.datetime)}`).addTo(group)
  }
  const lastStage = stages[stages.length - 1]
  const end = lastStage.trajectory[lastStage.trajectory.length - 1]
  mark('landing', at(end), `${lastStage.stage === 'descent' ? 'landing' : 'end'} ` +
    `${latLon(end.latitude, end.longitude)}, ${utc(end.datetime)}`).addTo(group)
  return bounds
}

function drawEnsemble (group: L.LayerGroup, ensemble: Ensemble, bounds: L.LatLngBounds): void {
  const spread = ensemble.landing
  if (spread !== null) {
    const ring = L.circle([spread.mean_latitude, east(spread.mean_longitude)], {
      radius: Math.max(spread.p95_distance_km, 0.01) * 1000, className: 'spread', interactive: false
    }).addTo(group)
    titled(ring, `95 % of landings within ${num(spread.p95_distance_km, 1)} km of their mean`)
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
