// A vertical profile chart: height up the y axis, one or more quantities along x, a marker per
// requested height that carries the API's own number (data-value) so what is drawn can be checked
// against the JSON. The heights the model column cannot serve are shaded.
import { scaleLinear, type ScaleLinear } from 'd3-scale'
import { htmlEl, svgEl, titled } from './svg.js'
import { num } from './format.js'

export interface Series {
  /** Legend name, e.g. "temperature". */
  name: string
  /** CSS class for colour and dash; the marker shape also tells series apart without colour. */
  cls: string
  marker: 'circle' | 'square' | 'diamond'
  /** Plotted values (display unit), one per height; NaN leaves a gap. */
  values: number[]
  /** The API's numbers, one per height, as answered. */
  raw: number[]
  unit: string
  digits: number
  /** Which x axis: the bottom one (default) or a second one on top. */
  axis?: 'bottom' | 'top'
}

export interface ProfileChart {
  title: string
  heights: number[]
  heightLabel: string
  xLabel: string
  topLabel?: string
  topDomain?: [number, number]
  series: Series[]
  /** The served height range in the chart's reference [min, max]. */
  coverage: [number, number]
  /** The part served by the model's near-ground fields [ground, top], marked; null: none. */
  surfaceLayer?: [number, number] | null
  /** Drawn in a strip at the right (wind barbs). */
  strip?: (g: SVGGElement, y: (h: number) => number, x: number) => void
}

const W = 340
const H = 380
const M = { top: 34, right: 14, bottom: 42, left: 58 }
const STRIP = 44
/** Pixels between the plot's highest height and its top edge (the direction axis on the wind chart). */
const INSET = 12

export function drawProfileChart (figure: HTMLElement, spec: ProfileChart): void {
  figure.replaceChildren()
  const right = M.right + (spec.strip === undefined ? 0 : STRIP)
  const top = M.top + (spec.topDomain === undefined ? 0 : 18)
  const svg = svgEl('svg', {
    viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': spec.title
  }, figure)
  const lo = Math.min(0, ...spec.heights, spec.coverage[0])
  const hi = Math.max(...spec.heights)
  // the highest height stops INSET below the top edge: its markers never sit on the top axis
  const y = scaleLinear().domain([lo, hi === lo ? lo + 1 : hi]).nice().range([H - M.bottom, top + INSET])
  const bottomValues = spec.series.filter((s) => s.axis !== 'top').flatMap((s) => s.values).filter(Number.isFinite)
  const x = scaleLinear().domain(extent(bottomValues)).nice().range([M.left, W - right])
  const xTop = spec.topDomain === undefined ? null : scaleLinear().domain(spec.topDomain).range([M.left, W - right])

  // The heights outside the model column, shaded and labelled.
  const [d0, d1] = y.domain()
  const [c0, c1] = spec.coverage
  if (c0 > d0) band(svg, y(c0), y(d0), right, `below the model column (${num(c0, 0)} m)`)
  if (c1 < d1) band(svg, top, y(c1), right, `above the model column (${num(c1, 0)} m)`)
  if (spec.surfaceLayer != null) {
    const [s0, s1] = spec.surfaceLayer
    // named in the caption, not on the plot: a label inside the band sat on its 100 m markers
    band(svg, y(Math.min(s1, d1)), y(Math.max(s0, d0)), right, 'near-ground fields', 'surface-layer', false)
  }

  yAxis(svg, y, spec.heightLabel, right)
  xAxis(svg, x, H - M.bottom, spec.xLabel, 'bottom')
  if (xTop !== null) xAxis(svg, xTop, top, spec.topLabel ?? '', 'top')
  const order = spec.heights.map((_, i) => i).sort((a, b) => spec.heights[a] - spec.heights[b])
  for (const s of spec.series) {
    const sx = s.axis === 'top' && xTop !== null ? xTop : x
    const g = svgEl('g', { class: `series ${s.cls}`, 'data-series': s.name }, svg)
    let d = ''
    let pen = false
    for (const i of order) {
      if (!Number.isFinite(s.values[i])) { pen = false; continue }
      d += `${pen ? 'L' : 'M'}${sx(s.values[i]).toFixed(1)},${y(spec.heights[i]).toFixed(1)}`
      pen = true
    }
    if (s.axis !== 'top') svgEl('path', { d, class: 'line', fill: 'none' }, g)
    spec.heights.forEach((h, i) => {
      if (!Number.isFinite(s.values[i])) return
      const m = marker(g, s.marker, sx(s.values[i]), y(h))
      m.setAttribute('data-altitude', String(h))
      m.setAttribute('data-value', String(s.raw[i]))
      titled(m, `${num(h, 0)} m: ${s.name} ${num(s.values[i], s.digits)} ${s.unit}`)
    })
  }
  caption(figure, spec)
  if (spec.strip !== undefined) {
    const g = svgEl('g', { class: 'strip' }, svg)
    spec.strip(g, (h) => y(h), W - M.right - STRIP / 2)
  }
}

function extent (values: number[]): [number, number] {
  if (values.length === 0) return [0, 1]
  let lo = Math.min(...values)
  let hi = Math.max(...values)
  if (hi - lo < 1e-9) { lo -= 1; hi += 1 }
  return [lo, hi]
}

function band (
  svg: SVGSVGElement, y0: number, y1: number, right: number, label: string, cls = 'outside-column', text = true
): void {
  const g = svgEl('g', { class: cls }, svg)
  titled(svgEl('rect', { x: M.left, y: y0, width: W - right - M.left, height: Math.max(0, y1 - y0) }, g), label)
  if (text && y1 - y0 > 12) svgEl('text', { x: W - right - 4, y: y0 + 11, 'text-anchor': 'end' }, g).textContent = label
}

function yAxis (svg: SVGSVGElement, y: ScaleLinear<number, number>, label: string, right: number): void {
  const g = svgEl('g', { class: 'axis y' }, svg)
  for (const t of y.ticks(8)) {
    svgEl('line', { x1: M.left, x2: W - right, y1: y(t), y2: y(t), class: 'grid' }, g)
    svgEl('text', { x: M.left - 6, y: y(t) + 4, 'text-anchor': 'end' }, g).textContent = num(t, 0)
  }
  const text = svgEl('text', { x: 0, y: 0, 'text-anchor': 'middle', class: 'label',
    transform: `translate(14 ${(H - M.bottom + M.top) / 2}) rotate(-90)` }, g)
  text.textContent = label
}

function xAxis (svg: SVGSVGElement, x: ScaleLinear<number, number>, at: number, label: string,
  side: 'bottom' | 'top'): void {
  const g = svgEl('g', { class: `axis x ${side}` }, svg)
  const ticks = x.ticks(5)
  const digits = Math.max(0, -Math.floor(Math.log10(Math.abs(ticks[1] - ticks[0]) || 1)))
  const dy = side === 'bottom' ? 15 : -6
  svgEl('line', { x1: x.range()[0], x2: x.range()[1], y1: at, y2: at, class: 'domain' }, g)
  for (const t of ticks) {
    svgEl('line', { x1: x(t), x2: x(t), y1: at, y2: at + (side === 'bottom' ? 4 : -4), class: 'tick' }, g)
    svgEl('text', { x: x(t), y: at + dy, 'text-anchor': 'middle' }, g).textContent = num(t, digits)
  }
  const ly = side === 'bottom' ? at + 33 : at - 20
  svgEl('text', { x: (x.range()[0] + x.range()[1]) / 2, y: ly, 'text-anchor': 'middle', class: 'label' }, g)
    .textContent = label
}

/** A data point's marker (class `point`), or the legend's copy of it (class `swatch`). */
function marker (g: SVGElement, shape: Series['marker'], cx: number, cy: number, cls = 'point'): SVGElement {
  if (shape === 'circle') return svgEl('circle', { cx, cy, r: 4, class: cls }, g)
  if (shape === 'square') return svgEl('rect', { x: cx - 3.5, y: cy - 3.5, width: 7, height: 7, class: cls }, g)
  return svgEl('path', { d: `M${cx},${cy - 5}L${cx + 5},${cy}L${cx},${cy + 5}L${cx - 5},${cy}Z`, class: cls }, g)
}

/** The title and, for several series, a legend whose marker shapes match the chart's. */
function caption (figure: HTMLElement, spec: ProfileChart): void {
  const cap = htmlEl('figcaption', {}, undefined, figure)
  htmlEl('strong', {}, spec.title, cap)
  if (spec.surfaceLayer != null) {
    const item = htmlEl('span', { class: 'key surface-layer-key' }, undefined, cap)
    htmlEl('span', { class: 'band-swatch', 'aria-hidden': 'true' }, undefined, item)
    item.append(' near-ground fields')
  }
  if (spec.series.length < 2) return
  for (const s of spec.series) {
    const item = htmlEl('span', { class: 'key' }, undefined, cap)
    const icon = svgEl('svg', { viewBox: '0 0 12 12', width: 12, height: 12, class: `series ${s.cls}`,
      'aria-hidden': 'true' }, item)
    marker(icon, s.marker, 6, 6, 'swatch')
    item.append(` ${s.name}`)
  }
}
