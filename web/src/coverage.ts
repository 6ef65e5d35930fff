// The source's coverage and limits as the forms' bounds and defaults: the map's extent, the
// default point and time, the valid times with data, the heights and members allowed.
import type { Capabilities } from './api.js'
import type { MapView } from './map.js'
import { byId } from './svg.js'
import { num, utc } from './format.js'
import { TIME_EXAMPLE, toUtcInput } from './time.js'

type Runs = Capabilities['source']['time_coverage']['runs']

const input = (id: string): HTMLInputElement => byId<HTMLInputElement>(id)
const TIME_INPUTS = ['p-time', 'f-time', 'f-stop']

export function applyCapabilities (c: Capabilities, map: MapView): void {
  const { latitude, longitude } = c.spatial_coverage
  map.setCoverage([latitude.min, latitude.max], [longitude.min, longitude.max])
  const lat = Math.round(((latitude.min + latitude.max) / 2) * 100) / 100
  const lon = Math.round(((longitude.min + longitude.max) / 2) * 100) / 100
  for (const [id, v] of [['p-lat', lat], ['p-lon', lon], ['f-lat', lat], ['f-lon', lon]] as const) {
    if (input(id).value === '') input(id).value = String(v)
  }
  for (const id of ['p-lat', 'f-lat']) { input(id).min = String(latitude.min); input(id).max = String(latitude.max) }
  map.setPoint(Number(input('p-lat').value), Number(input('p-lon').value))
  const t = c.source.time_coverage
  byId('source-line').textContent = `${c.source.model}, ${c.source.status}. ` + (t.first_valid_time === null
    ? 'No valid times known yet.'
    : `Valid times ${utc(t.first_valid_time)} … ${utc(t.last_valid_time ?? t.first_valid_time)} ` +
      `(answered within ±${t.max_time_offset_hours} h), ${num(latitude.min, 2)}…${num(latitude.max, 2)}° N, ` +
      `${num(longitude.min, 2)}…${num(longitude.max, 2)}° E.`)
  if (t.first_valid_time !== null) {
    const first = toUtcInput(t.first_valid_time)
    const last = toUtcInput(t.last_valid_time ?? t.first_valid_time)
    for (const hint of document.querySelectorAll('.time-hint')) {
      hint.textContent = `UTC, e.g. ${TIME_EXAMPLE}; data from ${first} to ${last}.`
    }
    const start = defaultTime(t.runs) ?? first
    const pick = byId<HTMLSelectElement>('valid-time-pick')
    pick.replaceChildren(new Option('choose…', ''))
    for (const v of validTimes(t.runs)) pick.add(new Option(utc(v), toUtcInput(v)))
    for (const id of ['p-time', 'f-time']) if (input(id).value === '') input(id).value = start
  }
  const max = c.limits.altitudes_per_request.max
  byId('p-heights-hint').textContent = `Up to ${max} heights, in metres.`
  input('f-members').max = String(c.trajectory.max_members)
}

/** Before the capabilities arrive (or when they do not), the time inputs still say what they take. */
export function timeHints (): void {
  for (const hint of document.querySelectorAll('.time-hint')) hint.textContent = `UTC, e.g. ${TIME_EXAMPLE}.`
  for (const id of TIME_INPUTS) input(id).placeholder = TIME_EXAMPLE
}

/** Every valid time the runs hold, oldest first (a run's time plus each of its forecast hours). */
function validTimes (runs: Runs): string[] {
  const out = new Set<number>()
  for (const r of runs) {
    const t0 = Date.parse(r.run)
    for (const h of r.forecast_hours) for (let f = h.first; f <= h.last; f += h.every) out.add(t0 + f * 3_600_000)
  }
  return [...out].sort((a, b) => a - b).map((t) => new Date(t).toISOString())
}

/** The start of the run with the most forecast hours (the newest of equals): a flight from there stays in it. */
function defaultTime (runs: Runs): string | null {
  const hours = (r: Runs[number]): number =>
    r.forecast_hours.reduce((n, h) => n + Math.floor((h.last - h.first) / h.every) + 1, 0)
  if (runs.length === 0) return null
  return toUtcInput(runs.reduce((a, b) => (hours(b) > hours(a) ? b : a)).run)
}
