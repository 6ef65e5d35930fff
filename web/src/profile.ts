// The profile panel: what to ask (time, heights as a list or a range, AGL or MSL) and what came
// back: four charts, the values as a table and the provenance in plain words.
import type { AtmosphereRequest, AtmosphereResponse, Capabilities } from './api.js'
import { dewPointLiquid } from '../../src/atmosphere/humidity.js'
import { drawProfileChart, type Series } from './chart.js'
import { windBarbs } from './barbs.js'
import { byId, htmlEl, titled } from './svg.js'
import { celsius, latLon, num, utc } from './format.js'
import { fromUtcInput } from './time.js'
import type { Checked, FieldFor, Issue } from './field-errors.js'

/** What the form asks, or what is wrong with it, field by field. */
export function readProfileForm (caps: Capabilities | null): Checked<AtmosphereRequest> {
  const issues: Issue[] = []
  const coordinate = (id: string, what: string): number => {
    const text = byId<HTMLInputElement>(id).value.trim()
    const v = Number(text)
    if (text === '' || !Number.isFinite(v)) issues.push({ field: id, message: `Enter a ${what} in degrees.` })
    return v
  }
  const lat = coordinate('p-lat', 'latitude (or click the map)')
  const lon = coordinate('p-lon', 'longitude (or click the map)')
  const time = fromUtcInput(byId<HTMLInputElement>('p-time').value)
  if ('error' in time) issues.push({ field: 'p-time', message: time.error })
  const heights = readHeights()
  const heightsField = heightsInput()
  const max = caps?.limits.altitudes_per_request.max ?? 32
  if (typeof heights === 'string') issues.push({ field: heightsField, message: heights })
  else if (heights.length > max) {
    const message = `That is ${heights.length} heights; one profile takes at most ${max}.`
    issues.push({ field: heightsField, message })
  }
  if (issues.length > 0 || typeof heights === 'string' || 'error' in time) return { ok: false, issues }
  return {
    ok: true,
    value: {
      latitude: lat,
      longitude: lon,
      time: time.iso,
      altitudes_m: heights,
      altitude_reference: byId<HTMLSelectElement>('p-ref').value as AtmosphereRequest['altitude_reference'],
      surface_layer: byId<HTMLInputElement>('p-surface').checked
    }
  }
}

/** The input holding the heights: the list, or the range's start. */
const heightsInput = (): string => byId<HTMLInputElement>('p-mode-range').checked ? 'p-from' : 'p-list'

/** The profile form's input for an `errors[]` location (body omitted), and its unit. */
export const profileField: FieldFor = (path) => {
  switch (path[0]) {
    case 'latitude': return { id: 'p-lat', unit: '°' }
    case 'longitude': return { id: 'p-lon', unit: '°' }
    case 'time': return { id: 'p-time' }
    case 'altitudes_m': return { id: heightsInput(), unit: ' m' }
    case 'altitude_reference': return { id: 'p-ref' }
    case 'surface_layer': return { id: 'p-surface' }
    default: return null
  }
}

function readHeights (): number[] | string {
  if (byId<HTMLInputElement>('p-mode-range').checked) {
    const from = Number(byId<HTMLInputElement>('p-from').value)
    const to = Number(byId<HTMLInputElement>('p-to').value)
    const step = Number(byId<HTMLInputElement>('p-step').value)
    if (![from, to, step].every(Number.isFinite) || step <= 0 || to < from) {
      return 'A range needs a start, an end at or above it and a positive step.'
    }
    const out: number[] = []
    for (let h = from; h <= to + 1e-9 && out.length <= 1000; h += step) out.push(Math.round(h * 1000) / 1000)
    return out
  }
  const parts = byId<HTMLInputElement>('p-list').value.split(/[\s,;]+/).filter((s) => s !== '')
  const heights = parts.map(Number)
  const bad = parts.find((s, i) => !Number.isFinite(heights[i]))
  if (bad !== undefined) return `“${bad}” is not a height in metres.`
  if (heights.length === 0) return 'Enter at least one height.'
  if (new Set(heights).size !== heights.length) return 'Each height once, please.'
  return heights
}

export function renderProfile (answer: AtmosphereResponse, reference: 'agl' | 'msl', caps: Capabilities | null): void {
  const levels = answer.levels
  const heights = levels.map((l) => reference === 'agl' ? l.altitude_agl_m : l.altitude_msl_m)
  const cov = answer.coverage
  const coverage: [number, number] = reference === 'agl'
    ? [cov.minimum_agl_m, cov.maximum_agl_m]
    : [cov.minimum_msl_m, cov.maximum_msl_m]
  const surfaceLayer = surfaceLayerPart(answer, reference, caps)
  const heightLabel = `height ${reference.toUpperCase()} (m)`
  const dew = levels.map((l) => dewPointLiquid(l.specific_humidity_kg_kg, l.pressure_pa))
  const series = (name: string, cls: string, raw: number[], unit: string, digits: number,
    shown: (x: number) => number = (x) => x, marker: Series['marker'] = 'circle'): Series =>
    ({ name, cls, marker, raw, values: raw.map(shown), unit, digits })

  drawProfileChart(byId('chart-temperature'), {
    title: 'Temperature and dew point', heights, heightLabel, xLabel: '°C', coverage, surfaceLayer,
    series: [
      series('temperature', 's-temperature', levels.map((l) => l.temperature_k), '°C', 1, celsius),
      series('dew point', 's-dewpoint', dew, '°C', 1, celsius, 'square')
    ]
  })
  drawProfileChart(byId('chart-wind'), {
    title: 'Wind speed and direction', heights, heightLabel, xLabel: 'speed (m/s)', coverage, surfaceLayer,
    topLabel: 'direction from (°)', topDomain: [0, 360],
    series: [
      series('speed', 's-speed', levels.map((l) => l.wind_speed_ms), 'm/s', 1),
      { ...series('direction', 's-direction', levels.map((l) => l.wind_direction_deg), '°', 0, undefined, 'diamond'),
        axis: 'top' }
    ],
    strip: (g, y, x) => {
      const drawn = windBarbs(g, x, levels.map((l, i) => ({
        y: y(heights[i]), altitude: heights[i], speedMs: l.wind_speed_ms, fromDeg: l.wind_direction_deg
      })))
      g.dataset.barbs = `${drawn} of ${levels.length}`
      if (drawn < levels.length) titled(g, `wind barbs at ${drawn} of the ${levels.length} heights, kept apart`)
    }
  })
  drawProfileChart(byId('chart-humidity'), {
    title: 'Relative humidity', heights, heightLabel, xLabel: '% (over liquid water)', coverage, surfaceLayer,
    series: [series('relative humidity', 's-humidity', levels.map((l) => l.relative_humidity_pct), '%', 0)]
  })
  drawProfileChart(byId('chart-density'), {
    title: 'Air density', heights, heightLabel, xLabel: 'kg/m³', coverage, surfaceLayer,
    series: [series('density', 's-density', levels.map((l) => l.density_kg_m3), 'kg/m³', 3)]
  })
  renderTable(answer, dew)
  renderProvenance(answer, reference)
}

/**
 * The heights (in the chart's reference) served by the model's near-ground fields: from the model
 * ground to its highest field (capabilities name them); null when the column has no surface layer.
 */
function surfaceLayerPart (
  answer: AtmosphereResponse, reference: 'agl' | 'msl', caps: Capabilities | null
): [number, number] | null {
  if (answer.provenance.surface_layer !== 'gfs_height_above_ground') return null
  const top = Math.max(...(caps?.surface_layer.fields.flatMap((f) => f.heights_m_agl) ?? [100]))
  const ground = answer.model_ground_elevation_m_msl
  const shift = reference === 'agl' ? answer.ground_elevation_m_msl : 0
  return [ground - shift, ground + top - shift]
}

/** Soft hyphens (\u00AD) let the long words break, so every column fits a ~560 px panel. */
const COLUMNS: { name: string, unit: string, digits: number,
  value: (l: AtmosphereResponse['levels'][number], dew: number) => number, shown?: (x: number) => number }[] = [
  { name: 'height AGL', unit: 'm', digits: 0, value: (l) => l.altitude_agl_m },
  { name: 'height MSL', unit: 'm', digits: 0, value: (l) => l.altitude_msl_m },
  { name: 'tempe\u00ADrature', unit: '°C', digits: 1, value: (l) => l.temperature_k, shown: celsius },
  { name: 'dew point', unit: '°C', digits: 1, value: (_, dew) => dew, shown: celsius },
  { name: 'rela\u00ADtive humid\u00ADity', unit: '%', digits: 0, value: (l) => l.relative_humidity_pct },
  { name: 'pres\u00ADsure', unit: 'hPa', digits: 1, value: (l) => l.pressure_pa, shown: (p) => p / 100 },
  { name: 'wind speed', unit: 'm/s', digits: 1, value: (l) => l.wind_speed_ms },
  { name: 'wind from', unit: '°', digits: 0, value: (l) => l.wind_direction_deg },
  { name: 'wind u (east\u00ADward)', unit: 'm/s', digits: 1, value: (l) => l.wind_u_ms },
  { name: 'wind v (north\u00ADward)', unit: 'm/s', digits: 1, value: (l) => l.wind_v_ms },
  { name: 'spe\u00ADcific humid\u00ADity q', unit: 'g/kg', digits: 2, value: (l) => l.specific_humidity_kg_kg,
    shown: (q) => q * 1000 },
  { name: 'den\u00ADsity', unit: 'kg/m³', digits: 3, value: (l) => l.density_kg_m3 }
]

function renderTable (answer: AtmosphereResponse, dew: number[]): void {
  const table = byId<HTMLTableElement>('profile-table')
  table.replaceChildren()
  htmlEl('caption', {}, 'Values at each requested height, in the order asked', table)
  const head = htmlEl('tr', {}, undefined, htmlEl('thead', {}, undefined, table))
  for (const c of COLUMNS) {
    const th = htmlEl('th', { scope: 'col' }, c.name, head)
    htmlEl('span', { class: 'unit' }, c.unit, th)
  }
  const body = htmlEl('tbody', {}, undefined, table)
  answer.levels.forEach((l, i) => {
    const row = htmlEl('tr', {}, undefined, body)
    for (const c of COLUMNS) {
      const raw = c.value(l, dew[i])
      htmlEl('td', { 'data-value': String(raw) }, num((c.shown ?? ((x) => x))(raw), c.digits), row)
    }
  })
}

function renderProvenance (answer: AtmosphereResponse, reference: 'agl' | 'msl'): void {
  const p = answer.provenance
  const box = byId('profile-provenance')
  box.replaceChildren()
  const ground = answer.ground_source === 'model' ? 'the model terrain' : 'the ground elevation you gave'
  const lines = [
    `From the ${p.model} run of ${utc(p.model_run_at)}, forecast hour ${p.forecast_hour} ` +
      `(valid ${utc(answer.valid_time)}; you asked for ${utc(answer.requested_time)}).`,
    `Values of the grid point nearest your point: ${latLon(p.sampled_latitude, p.sampled_longitude)}; ` +
      `ground at ${num(answer.ground_elevation_m_msl, 1)} m above sea level, from ${ground}.`,
    `This point's model column serves ${num(reference === 'agl' ? answer.coverage.minimum_agl_m
      : answer.coverage.minimum_msl_m, 0)}–${num(reference === 'agl' ? answer.coverage.maximum_agl_m
      : answer.coverage.maximum_msl_m, 0)} m ${reference.toUpperCase()} (shaded outside on the charts).`,
    p.surface_layer === undefined
      ? 'The column is the pressure levels alone (near-ground fields not asked for).'
      : p.surface_layer === 'gfs_height_above_ground'
        ? `Near the ground the column is the model's own fields at (${nodeWords(p.surface_layer_nodes)}; marked ` +
          'on the charts), wind under 10 m by the 1/7 power law; fields packed coarser than their tolerance are not ' +
          'used.'
        : 'This model file lacks the near-ground fields: the column is the pressure levels alone.'
  ]
  for (const line of lines) htmlEl('p', {}, line, box)
  const sha = htmlEl('p', {}, 'Source bytes (sha256): ', box)
  htmlEl('code', { class: 'sha' }, p.source_sha256, sha)
  const methods = [p.vertical_interpolation, p.spatial_interpolation, p.temporal_interpolation]
    .filter((m) => m !== undefined).map((m) => m.replaceAll('_', ' '))
  htmlEl('p', { class: 'small' }, `Methods: ${methods.join('; ')}. ` +
    `Dew point here is computed in the page from q and p (Murphy & Koop over liquid water). ${p.attribution}`, box)
}

/** The heights each variable's near-ground nodes stood at, in words: "wind 10, 20, … 100 m, temperature 2 m, …". */
function nodeWords (nodes: AtmosphereResponse['provenance']['surface_layer_nodes']): string {
  if (nodes === undefined) return 'near-ground fields'
  const at = (hs: number[]): string => hs.length === 0 ? 'none' : `${hs.join(', ')} m`
  return `wind ${at(nodes.wind)}; temperature ${at(nodes.temperature)}; humidity ` +
    `${at(nodes.specific_humidity)}; pressure ${at(nodes.pressure)}`
}
