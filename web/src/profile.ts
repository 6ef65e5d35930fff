// The profile panel: what to ask (time, heights as a list or a range, AGL or MSL) and what came
// back: four charts, the values as a table and the provenance in plain words.
import type { AtmosphereRequest, AtmosphereResponse, Capabilities } from './api.js'
import { dewPointLiquid } from '../../src/atmosphere/humidity.js'
import { drawProfileChart, type Series } from './chart.js'
import { windBarb } from './barbs.js'
import { byId, htmlEl } from './svg.js'
import { celsius, fromLocalInput, latLon, num, utc } from './format.js'

/** What the form asks, or a sentence saying what is wrong with it. */
export function readProfileForm (caps: Capabilities | null): AtmosphereRequest | string {
  const lat = Number(byId<HTMLInputElement>('p-lat').value)
  const lon = Number(byId<HTMLInputElement>('p-lon').value)
  const time = byId<HTMLInputElement>('p-time').value
  if (byId<HTMLInputElement>('p-lat').value === '' || !Number.isFinite(lat)) {
    return 'Enter a latitude (or click the map).'
  }
  if (byId<HTMLInputElement>('p-lon').value === '' || !Number.isFinite(lon)) return 'Enter a longitude.'
  if (time === '') return 'Choose a time.'
  const heights = readHeights()
  if (typeof heights === 'string') return heights
  const max = caps?.limits.altitudes_per_request.max ?? 32
  if (heights.length > max) return `That is ${heights.length} heights; one profile takes at most ${max}.`
  return {
    latitude: lat,
    longitude: lon,
    time: fromLocalInput(time),
    altitudes_m: heights,
    altitude_reference: byId<HTMLSelectElement>('p-ref').value as AtmosphereRequest['altitude_reference']
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

export function renderProfile (answer: AtmosphereResponse, reference: 'agl' | 'msl'): void {
  const levels = answer.levels
  const heights = levels.map((l) => reference === 'agl' ? l.altitude_agl_m : l.altitude_msl_m)
  const cov = answer.coverage
  const coverage: [number, number] = reference === 'agl'
    ? [cov.minimum_agl_m, cov.maximum_agl_m]
    : [cov.minimum_msl_m, cov.maximum_msl_m]
  const heightLabel = `height ${reference.toUpperCase()} (m)`
  const dew = levels.map((l) => dewPointLiquid(l.specific_humidity_kg_kg, l.pressure_pa))
  const series = (name: string, cls: string, raw: number[], unit: string, digits: number,
    shown: (x: number) => number = (x) => x, marker: Series['marker'] = 'circle'): Series =>
    ({ name, cls, marker, raw, values: raw.map(shown), unit, digits })

  drawProfileChart(byId('chart-temperature'), {
    title: 'Temperature and dew point', heights, heightLabel, xLabel: '°C', coverage,
    series: [
      series('temperature', 's-temperature', levels.map((l) => l.temperature_k), '°C', 1, celsius),
      series('dew point', 's-dewpoint', dew, '°C', 1, celsius, 'square')
    ]
  })
  drawProfileChart(byId('chart-wind'), {
    title: 'Wind speed and direction', heights, heightLabel, xLabel: 'speed (m/s)', coverage,
    topLabel: 'direction from (°)', topDomain: [0, 360],
    series: [
      series('speed', 's-speed', levels.map((l) => l.wind_speed_ms), 'm/s', 1),
      { ...series('direction', 's-direction', levels.map((l) => l.wind_direction_deg), '°', 0, undefined, 'diamond'),
        axis: 'top' }
    ],
    strip: (g, y, x) => levels.forEach((l, i) => windBarb(g, x, y(heights[i]), l.wind_speed_ms, l.wind_direction_deg))
  })
  drawProfileChart(byId('chart-humidity'), {
    title: 'Relative humidity', heights, heightLabel, xLabel: '% (over liquid water)', coverage,
    series: [series('relative humidity', 's-humidity', levels.map((l) => l.relative_humidity_pct), '%', 0)]
  })
  drawProfileChart(byId('chart-density'), {
    title: 'Air density', heights, heightLabel, xLabel: 'kg/m³', coverage,
    series: [series('density', 's-density', levels.map((l) => l.density_kg_m3), 'kg/m³', 3)]
  })
  renderTable(answer, dew)
  renderProvenance(answer, reference)
}

const COLUMNS: { head: string, digits: number, value: (l: AtmosphereResponse['levels'][number], dew: number) => number,
  shown?: (x: number) => number }[] = [
  { head: 'height AGL (m)', digits: 0, value: (l) => l.altitude_agl_m },
  { head: 'height MSL (m)', digits: 0, value: (l) => l.altitude_msl_m },
  { head: 'temperature (°C)', digits: 1, value: (l) => l.temperature_k, shown: celsius },
  { head: 'dew point (°C)', digits: 1, value: (_, dew) => dew, shown: celsius },
  { head: 'RH (%)', digits: 0, value: (l) => l.relative_humidity_pct },
  { head: 'pressure (hPa)', digits: 1, value: (l) => l.pressure_pa, shown: (p) => p / 100 },
  { head: 'wind (m/s)', digits: 1, value: (l) => l.wind_speed_ms },
  { head: 'from (°)', digits: 0, value: (l) => l.wind_direction_deg },
  { head: 'u (m/s)', digits: 1, value: (l) => l.wind_u_ms },
  { head: 'v (m/s)', digits: 1, value: (l) => l.wind_v_ms },
  { head: 'q (g/kg)', digits: 2, value: (l) => l.specific_humidity_kg_kg, shown: (q) => q * 1000 },
  { head: 'density (kg/m³)', digits: 3, value: (l) => l.density_kg_m3 }
]

function renderTable (answer: AtmosphereResponse, dew: number[]): void {
  const table = byId<HTMLTableElement>('profile-table')
  table.replaceChildren()
  htmlEl('caption', {}, 'Values at each requested height, in the order asked', table)
  const head = htmlEl('tr', {}, undefined, htmlEl('thead', {}, undefined, table))
  for (const c of COLUMNS) htmlEl('th', { scope: 'col' }, c.head, head)
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
      : answer.coverage.maximum_msl_m, 0)} m ${reference.toUpperCase()} (shaded outside on the charts).`
  ]
  for (const line of lines) htmlEl('p', {}, line, box)
  const sha = htmlEl('p', {}, 'Source bytes (sha256): ', box)
  htmlEl('code', { class: 'sha' }, p.source_sha256, sha)
  const methods = [p.vertical_interpolation, p.spatial_interpolation, p.temporal_interpolation]
    .filter((m) => m !== undefined).map((m) => m.replaceAll('_', ' '))
  htmlEl('p', { class: 'small' }, `Methods: ${methods.join('; ')}. ` +
    `Dew point here is computed in the page from q and p (Murphy & Koop over liquid water). ${p.attribution}`, box)
}
