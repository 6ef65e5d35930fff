// The explorer's entry: the key, the capabilities that set the defaults, and the two panels
// sharing one map. Everything the API says goes on the page; nothing fails silently.
import { api, ApiError, type AtmosphereRequest, type Capabilities, type TrajectoryResponse } from './api.js'
import { restoreKey, setKey } from './key.js'
import { checkKey } from './key-check.js'
import { MapView } from './map.js'
import { profileField, readProfileForm, renderProfile } from './profile.js'
import { downloadGeoJson, flightField, readFlightForm, renderFlight } from './flight.js'
import { applyCapabilities, timeHints } from './coverage.js'
import { clearError, showError, suggest } from './problem-box.js'
import { showIssues } from './field-errors.js'
import { byId } from './svg.js'
import { num } from './format.js'
import { ENSEMBLE_SPREAD_DEFAULTS } from '../../src/trajectory/spread-defaults.js'

let caps: Capabilities | null = null
let lastFlight: TrajectoryResponse | null = null
const input = (id: string): HTMLInputElement => byId<HTMLInputElement>(id)

// the σ `aloft trajectory --members N` uses too, from their one home
input('f-ascent-sd').value = String(ENSEMBLE_SPREAD_DEFAULTS.ascent_rate_sd)
input('f-burst-sd').value = String(ENSEMBLE_SPREAD_DEFAULTS.burst_altitude_sd)
input('f-descent-sd').value = String(ENSEMBLE_SPREAD_DEFAULTS.descent_rate_sd)

const map = new MapView(byId('map'), (lat, lon) => {
  input('p-lat').value = String(lat)
  input('p-lon').value = String(lon)
  input('f-lat').value = String(lat)
  input('f-lon').value = String(lon)
})

/**
 * A place typed into one form is the chosen point, as a click on the map is: the crosshair moves
 * and the other form takes it (the profile's point is the flight's launch until one is changed).
 */
function sharePoint (from: 'p' | 'f', to: 'p' | 'f'): void {
  const lat = Number(input(`${from}-lat`).value)
  const lon = Number(input(`${from}-lon`).value)
  if (input(`${from}-lat`).value.trim() === '' || input(`${from}-lon`).value.trim() === '') return
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || lon < -180 || lon >= 360) return
  input(`${to}-lat`).value = input(`${from}-lat`).value.trim()
  input(`${to}-lon`).value = input(`${from}-lon`).value.trim()
  map.setPoint(lat, lon)
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
  clearError('profile-error', 'profile-form')
  const read = readProfileForm(caps)
  if (!read.ok) {
    showIssues(byId('profile-form'), byId('profile-error'), 'Check the form', read.issues)
    return
  }
  const body = read.value
  map.setPoint(body.latitude, body.longitude)
  try {
    const answer = await busy('profile', () => api.profile(body))
    byId('profile-result').hidden = false
    renderProfile(answer, body.altitude_reference, caps)
  } catch (err) {
    byId('profile-result').hidden = true
    showError('profile-error', err, { id: 'profile-form', fieldFor: profileField })
    if (belowColumn(err, body)) {
      suggest('profile-error', 'Heights below the lowest pressure level are served by the model\'s near-ground ' +
        'fields, down to the model ground.', 'Turn on near-ground fields and ask again', () => {
        input('p-surface').checked = true
        byId<HTMLFormElement>('profile-form').requestSubmit()
      })
    }
  }
}

/**
 * A 409 the near-ground fields (not asked for) would answer: heights under the pressure levels, none
 * under the ground (the fields reach down to the model ground, which a caller's ground is taken for
 * here) and none above the column.
 */
function belowColumn (err: unknown, body: AtmosphereRequest): boolean {
  if (!(err instanceof ApiError) || err.status !== 409 || body.surface_layer === true) return false
  const coverage = err.problem?.coverage as Record<string, number> | undefined
  if (coverage === undefined) return false
  const agl = body.altitude_reference === 'agl'
  const [lowest, highest] = agl ? [coverage.minimum_agl_m, coverage.maximum_agl_m]
    : [coverage.minimum_msl_m, coverage.maximum_msl_m]
  const ground = agl ? 0 : coverage.minimum_msl_m - coverage.minimum_agl_m
  return body.altitudes_m.some((h) => h < lowest) && body.altitudes_m.every((h) => h >= ground && h <= highest)
}

async function askFlight (ev: Event): Promise<void> {
  ev.preventDefault()
  clearError('flight-error', 'flight-form')
  const read = readFlightForm(caps)
  if (!read.ok) {
    showIssues(byId('flight-form'), byId('flight-error'), 'Check the form', read.issues)
    return
  }
  try {
    lastFlight = await busy('flight', () => api.trajectory(read.value))
    byId('flight-result').hidden = false
    renderFlight(lastFlight)
    map.setFlight(lastFlight)
  } catch (err) {
    lastFlight = null
    byId('flight-result').hidden = true
    map.setFlight(null)
    showError('flight-error', err, { id: 'flight-form', fieldFor: flightField })
  }
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
    const key = keyInput.value.trim()
    state.textContent = key === '' ? 'No key set.' : 'Checking the key…'
    state.dataset.state = 'checking'
    void checkKey(key).then((verdict) => {
      if (keyInput.value.trim() !== key) return // a newer key is being checked
      const where = verdict.state === 'ok' && key !== ''
        ? keep.checked ? ' Kept for this browser session.' : ' Used in this tab only.'
        : ''
      state.textContent = verdict.message + where
      state.dataset.state = verdict.state
    })
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
  timeHints()
  for (const id of ['p-lat', 'p-lon']) input(id).addEventListener('change', () => sharePoint('p', 'f'))
  for (const id of ['f-lat', 'f-lon']) input(id).addEventListener('change', () => sharePoint('f', 'p'))
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
  // the map's background loads on its own: the forms need not wait for coastlines
  void map.load().catch((err: unknown) => showError('page-error', err))
  try {
    caps = await api.capabilities()
    applyCapabilities(caps, map)
  } catch (err) {
    byId('source-line').textContent = ''
    showError('page-error', err)
  }
  document.body.dataset.ready = 'true'
}

void start()
