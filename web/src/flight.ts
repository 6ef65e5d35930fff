// The flight panel: a launch (standard or float profile, optionally an ensemble), and what came
// back: the path on the map, altitude against time, its named points (flightMarks), the ensemble's spread, and
// the flight as a GeoJSON file.
import type { Capabilities, TrajectoryRequest, TrajectoryResponse } from './api.js'
import { east, ensembleWords, flightMarks, geojson, spreadShown } from '../../src/trajectory/formats.js'
import { byId, htmlEl } from './svg.js'
import { drawAltitudeChart } from './flight-chart.js'
import { duration, latLon, num, utc } from './format.js'
import { fromUtcInput } from './time.js'
import type { Checked, FieldFor, Issue } from './field-errors.js'

const field = (id: string): string => byId<HTMLInputElement>(id).value.trim()

/** What the form asks, or what is wrong with it, field by field. */
export function readFlightForm (caps: Capabilities | null): Checked<TrajectoryRequest> {
  const issues: Issue[] = []
  const number = (id: string, what: string): number => {
    const v = Number(field(id))
    if (field(id) === '' || !Number.isFinite(v)) issues.push({ field: id, message: `Enter the ${what}.` })
    return v
  }
  const time = (id: string): string => {
    const t = fromUtcInput(field(id))
    if ('error' in t) issues.push({ field: id, message: t.error })
    return 'iso' in t ? t.iso : ''
  }
  const profile = byId<HTMLSelectElement>('f-profile').value as NonNullable<TrajectoryRequest['profile']>
  const body: TrajectoryRequest = {
    profile,
    launch_latitude: number('f-lat', 'launch latitude (or click the map)'),
    launch_longitude: number('f-lon', 'launch longitude (or click the map)'),
    launch_datetime: time('f-time'),
    ascent_rate: number('f-ascent', 'ascent rate'),
    surface_layer: byId<HTMLInputElement>('f-surface').checked
  }
  if (field('f-altitude') !== '') body.launch_altitude = number('f-altitude', 'launch altitude, or leave it empty')
  if (profile === 'float_profile') {
    body.float_altitude = number('f-float', 'float altitude')
    body.stop_datetime = time('f-stop')
  } else {
    body.burst_altitude = number('f-burst', 'burst altitude')
    body.descent_rate = number('f-descent', 'descent rate')
    const ensemble = readEnsemble(caps, issues)
    if (ensemble !== undefined) body.ensemble = ensemble
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: body }
}

function readEnsemble (caps: Capabilities | null, issues: Issue[]): TrajectoryRequest['ensemble'] {
  const members = field('f-members') === '' ? 1 : Number(field('f-members'))
  const max = caps?.trajectory.max_members ?? 1000
  if (!Number.isInteger(members) || members < 1 || members > max) {
    issues.push({ field: 'f-members', message: `A whole number from 1 to ${max}.` })
    return undefined
  }
  if (members === 1) return undefined
  const sd = (id: string): number => {
    const v = field(id) === '' ? 0 : Number(field(id))
    if (!Number.isFinite(v)) issues.push({ field: id, message: 'Enter a number, or leave it empty for 0.' })
    return v
  }
  return {
    members,
    ascent_rate_sd: sd('f-ascent-sd'),
    burst_altitude_sd: sd('f-burst-sd'),
    descent_rate_sd: sd('f-descent-sd'),
    seed: sd('f-seed')
  }
}

/** The flight form's input for an `errors[]` location (body omitted), and its unit. */
export const flightField: FieldFor = (path) => {
  const [name, inner] = path
  if (name === 'ensemble') {
    return ENSEMBLE_FIELDS[String(inner)] ?? { id: 'f-members' }
  }
  return FLIGHT_FIELDS[String(name)] ?? null
}

const FLIGHT_FIELDS: Record<string, { id: string, unit?: string }> = {
  profile: { id: 'f-profile' },
  launch_latitude: { id: 'f-lat', unit: '°' },
  launch_longitude: { id: 'f-lon', unit: '°' },
  launch_datetime: { id: 'f-time' },
  launch_altitude: { id: 'f-altitude', unit: ' m' },
  ascent_rate: { id: 'f-ascent', unit: ' m/s' },
  burst_altitude: { id: 'f-burst', unit: ' m' },
  descent_rate: { id: 'f-descent', unit: ' m/s' },
  float_altitude: { id: 'f-float', unit: ' m' },
  stop_datetime: { id: 'f-stop' }
}

const ENSEMBLE_FIELDS: Record<string, { id: string, unit?: string }> = {
  members: { id: 'f-members' },
  ascent_rate_sd: { id: 'f-ascent-sd', unit: ' m/s' },
  burst_altitude_sd: { id: 'f-burst-sd', unit: ' m' },
  descent_rate_sd: { id: 'f-descent-sd', unit: ' m/s' },
  seed: { id: 'f-seed' }
}

export function renderFlight (answer: TrajectoryResponse): void {
  drawAltitudeChart(byId('chart-altitude'), answer)
  const box = byId('flight-summary')
  box.replaceChildren()
  const dl = htmlEl('dl', {}, undefined, box)
  const row = (term: string, text: string): void => {
    htmlEl('dt', {}, term, dl)
    htmlEl('dd', {}, text, dl)
  }
  const stages = answer.prediction
  const marks = flightMarks(answer)
  const first = marks[0].point
  const end = marks[marks.length - 1].point
  row('launch', `${utc(first.datetime)} at ${latLon(first.latitude, first.longitude)}, ${num(first.altitude, 0)} m`)
  // a burst or a float's start; the end named by how the flight ended (never a landing in mid-air)
  for (const m of marks.slice(1)) {
    const p = m.point
    row(m.name, `${utc(p.datetime)} at ${latLon(p.latitude, p.longitude)}, ${num(p.altitude, 0)} m`)
  }
  row('flight time', duration((Date.parse(end.datetime) - Date.parse(first.datetime)) / 1000))
  row('distance', `${num(greatCircleKm(first.latitude, first.longitude, end.latitude, end.longitude), 1)} km ` +
    'launch to end')
  row('points', stages.map((s) => `${s.stage} ${s.trajectory.length}`).join(', '))
  row('model run', utc(answer.request.dataset))
  const warnings = Object.entries(answer.warnings)
  if (warnings.length > 0) {
    const ul = htmlEl('ul', { class: 'warnings' }, undefined, box)
    for (const [, w] of warnings) htmlEl('li', {}, `${w.description} (${w.count}×)`, ul)
  }
  const ensemble = answer.ensemble
  if (ensemble !== undefined) {
    // how every member ended, and a spread only over the landed, only when enough landed to mean one
    const words = ensembleWords(ensemble, latLon)
    const dots = spreadShown(ensemble) || ensemble.landing === null ? '' : ' Their landings are marked one by one.'
    htmlEl('p', { class: 'spread-text' }, `${words.outcomes} ${words.spread}${dots}`, box)
  }
}

export function downloadGeoJson (answer: TrajectoryResponse): void {
  const features = geojson(answer) as { type: string, features: object[] }
  for (const m of answer.ensemble?.members ?? []) {
    if (m.landing === null) continue
    features.features.push({ type: 'Feature', properties: { name: 'member landing', ascent_rate: m.ascent_rate,
      burst_altitude: m.burst_altitude, descent_rate: m.descent_rate, datetime: m.landing.datetime },
    geometry: { type: 'Point', coordinates: [east(m.landing.longitude), m.landing.latitude, m.landing.altitude] } })
  }
  const blob = new Blob([JSON.stringify(features)], { type: 'application/geo+json' })
  const a = htmlEl('a', { href: URL.createObjectURL(blob),
    download: `aloft-flight-${answer.request.launch_datetime.replace(/[:]/g, '')}.geojson` })
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000)
}

const R_KM = 6371.009

function greatCircleKm (lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180
  const h = Math.sin((lat2 - lat1) * r / 2) ** 2 +
    Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin((lon2 - lon1) * r / 2) ** 2
  return 2 * R_KM * Math.asin(Math.min(1, Math.sqrt(h)))
}
