// The explorer's entry: the key, the capabilities that set the defaults, and the two panels
// sharing one map. Everything the API says goes on the page; nothing fails silently.
import { api, ApiError, type Capabilities, type TrajectoryResponse } from './api.js'
import { restoreKey, setKey } from './key.js'
import { MapView } from './map.js'
import { readProfileForm, renderProfile } from './profile.js'
import { downloadGeoJson, readFlightForm, renderFlight } from './flight.js'
import { byId, htmlEl } from './svg.js'
import { num, toLocalInput, utc } from './format.js'

let caps: Capabilities | null = null
let lastFlight: TrajectoryResponse | null = null
const input = (id: string): HTMLInputElement => byId<HTMLInputElement>(id)

const map = new MapView(byId('map'), (lat, lon) => {
  input('p-lat').value = String(lat)
  input('p-lon').value = String(lon)
  input('f-lat').value = String(lat)
  input('f-lon').value = String(lon)
})

/** A problem as a person should read it: its title, its detail and, for a 409, the heights served. */
function showError (where: string, err: unknown): void {
  const box = byId(where)
  box.replaceChildren()
  box.hidden = false
  if (!(err instanceof ApiError)) {
    htmlEl('strong', {}, 'Something went wrong in the page', box)
    htmlEl('p', {}, String((err as Error).message ?? err), box)
    return
  }
  htmlEl('strong', { class: 'problem-title' }, `${err.title}${err.status > 0 ? ` (HTTP ${err.status})` : ''}`, box)
  if (err.detail !== '') htmlEl('p', { class: 'problem-detail' }, err.detail, box)
  const coverage = err.problem?.coverage as Record<string, number> | undefined
  if (err.status === 409 && coverage !== undefined) {
    htmlEl('p', { class: 'served-range' }, `This point serves ${num(coverage.minimum_agl_m, 0)}–` +
      `${num(coverage.maximum_agl_m, 0)} m above ground (${num(coverage.minimum_msl_m, 0)}–` +
      `${num(coverage.maximum_msl_m, 0)} m above sea level).`, box)
  }
  if (err.status === 401 || err.status === 403) {
    htmlEl('p', {}, 'Enter a valid API key at the top of the page (npm run demo prints one).', box)
  }
}

function clearError (where: string): void {
  const box = byId(where)
  box.replaceChildren()
  box.hidden = true
}

/** Busy state: the button waits, a progress bar runs, and the status line says why it may take a while. */
async function busy<T> (panel: 'profile' | 'flight', work: () => Promise<T>): Promise<T> {
  const button = byId<HTMLButtonElement>(`${panel}-submit`)
  const progress = byId(`${panel}-progress`)
  const status = byId(`${panel}-status`)
  button.disabled = true
  progress.hidden = false
  status.textContent = 'Asking aloft… (data not yet cached is fetched from the source first)'
  const started = performance.now()
  try {
    const out = await work()
    status.textContent = `Answered in ${num(performance.now() - started, 0)} ms.`
    return out
  } catch (err) {
    status.textContent = ''
    throw err
  } finally {
    button.disabled = false
    progress.hidden = true
  }
}

async function askProfile (ev: Event): Promise<void> {
  ev.preventDefault()
  clearError('profile-error')
  const body = readProfileForm(caps)
  if (typeof body === 'string') {
    showError('profile-error', new ApiError(0, 'Check the form', body, null))
    return
  }
  map.setPoint(body.latitude, body.longitude)
  try {
    const answer = await busy('profile', () => api.profile(body))
    byId('profile-result').hidden = false
    renderProfile(answer, body.altitude_reference)
  } catch (err) {
    byId('profile-result').hidden = true
    showError('profile-error', err)
  }
}

async function askFlight (ev: Event): Promise<void> {
  ev.preventDefault()
  clearError('flight-error')
  const body = readFlightForm(caps)
  if (typeof body === 'string') {
    showError('flight-error', new ApiError(0, 'Check the form', body, null))
    return
  }
  try {
    lastFlight = await busy('flight', () => api.trajectory(body))
    byId('flight-result').hidden = false
    renderFlight(lastFlight)
    map.setFlight(lastFlight)
  } catch (err) {
    lastFlight = null
    byId('flight-result').hidden = true
    map.setFlight(null)
    showError('flight-error', err)
  }
}

/** The source's coverage and limits become the forms' bounds and defaults. */
function applyCapabilities (c: Capabilities): void {
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
  const line = byId('source-line')
  line.textContent = `${c.source.model}, ${c.source.status}. ` + (t.first_valid_time === null
    ? 'No valid times known yet.'
    : `Valid times ${utc(t.first_valid_time)} … ${utc(t.last_valid_time ?? t.first_valid_time)} ` +
      `(answered within ±${t.max_time_offset_hours} h), ${num(latitude.min, 2)}…${num(latitude.max, 2)}° N, ` +
      `${num(longitude.min, 2)}…${num(longitude.max, 2)}° E.`)
  if (t.first_valid_time !== null) {
    const first = toLocalInput(t.first_valid_time)
    const last = toLocalInput(t.last_valid_time ?? t.first_valid_time)
    for (const id of ['p-time', 'f-time', 'f-stop']) {
      input(id).min = first
      input(id).max = last
    }
    const start = defaultTime(t.runs) ?? first
    const pick = byId<HTMLSelectElement>('valid-time-pick')
    pick.replaceChildren(new Option('choose…', ''))
    for (const v of validTimes(t.runs)) pick.add(new Option(utc(v), toLocalInput(v)))
    if (input('p-time').value === '') input('p-time').value = start
    if (input('f-time').value === '') input('f-time').value = start
  }
  const max = c.limits.altitudes_per_request.max
  byId('p-heights-hint').textContent = `Up to ${max} heights, in metres.`
  input('f-members').max = String(c.trajectory.max_members)
}

type Runs = Capabilities['source']['time_coverage']['runs']

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
  return toLocalInput(runs.reduce((a, b) => (hours(b) > hours(a) ? b : a)).run)
}

function setupKey (): void {
  const keyInput = input('key')
  const keep = input('key-keep')
  const state = byId('key-state')
  const kept = restoreKey()
  if (kept !== '') {
    keyInput.value = kept
    keep.checked = true
    state.textContent = 'Key restored for this session.'
  }
  byId('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault()
    setKey(keyInput.value, keep.checked)
    state.textContent = keyInput.value.trim() === ''
      ? 'No key set.'
      : keep.checked ? 'Key set, kept for this browser session.' : 'Key set for this tab only.'
  })
}

function setupForms (): void {
  const toggleHeights = (): void => {
    const range = input('p-mode-range').checked
    byId('p-list-field').hidden = range
    byId('p-range-field').hidden = !range
  }
  input('p-mode-list').addEventListener('change', toggleHeights)
  input('p-mode-range').addEventListener('change', toggleHeights)
  toggleHeights()
  const toggleProfile = (): void => {
    const float = byId<HTMLSelectElement>('f-profile').value === 'float_profile'
    byId('f-standard').hidden = float
    byId('f-float-fields').hidden = !float
  }
  byId('f-profile').addEventListener('change', toggleProfile)
  toggleProfile()
  byId('profile-form').addEventListener('submit', (ev) => { void askProfile(ev) })
  byId('flight-form').addEventListener('submit', (ev) => { void askFlight(ev) })
  byId('map-reset').addEventListener('click', () => map.showCoverage())
  byId('valid-time-pick').addEventListener('change', () => {
    const value = byId<HTMLSelectElement>('valid-time-pick').value
    if (value !== '') for (const id of ['p-time', 'f-time']) input(id).value = value
  })
  byId('flight-download').addEventListener('click', () => { if (lastFlight !== null) downloadGeoJson(lastFlight) })
}

async function start (): Promise<void> {
  setupKey()
  setupForms()
  const [world, capabilities] = await Promise.allSettled([map.load(), api.capabilities()])
  if (capabilities.status === 'fulfilled') {
    caps = capabilities.value
    applyCapabilities(caps)
  } else {
    byId('source-line').textContent = ''
    showError('page-error', capabilities.reason)
  }
  if (world.status === 'rejected') showError('page-error', world.reason)
  document.body.dataset.ready = 'true'
}

void start()
