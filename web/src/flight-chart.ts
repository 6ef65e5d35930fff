// The flight's altitude against time: a line per stage with a vertex per trajectory point (each
// the API's own), time in UTC along the bottom, and a legend naming the stages.
import { scaleLinear, scaleUtc } from 'd3-scale'
import type { TrajectoryResponse } from './api.js'
import { htmlEl, svgEl, titled } from './svg.js'
import { num } from './format.js'

const W = 640
const H = 240
const M = { top: 12, right: 16, bottom: 40, left: 64 }

export function drawAltitudeChart (figure: HTMLElement, answer: TrajectoryResponse): void {
  figure.replaceChildren()
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img',
    'aria-label': 'Altitude against time' }, figure)
  const points = answer.prediction.flatMap((s) => s.trajectory)
  const times = points.map((p) => Date.parse(p.datetime))
  const x = scaleUtc().domain([Math.min(...times), Math.max(...times)]).range([M.left, W - M.right])
  const y = scaleLinear().domain([0, Math.max(...points.map((p) => p.altitude))]).nice().range([H - M.bottom, M.top])
  const axes = svgEl('g', { class: 'axis' }, svg)
  for (const t of y.ticks(5)) {
    svgEl('line', { x1: M.left, x2: W - M.right, y1: y(t), y2: y(t), class: 'grid' }, axes)
    svgEl('text', { x: M.left - 6, y: y(t) + 4, 'text-anchor': 'end' }, axes).textContent = num(t, 0)
  }
  for (const t of x.ticks(6)) {
    svgEl('line', { x1: x(t), x2: x(t), y1: H - M.bottom, y2: H - M.bottom + 4, class: 'tick' }, axes)
    svgEl('text', { x: x(t), y: H - M.bottom + 16, 'text-anchor': 'middle' }, axes).textContent =
      t.toISOString().slice(11, 16)
  }
  svgEl('text', { x: (M.left + W - M.right) / 2, y: H - 6, 'text-anchor': 'middle', class: 'label' }, axes)
    .textContent = 'time (UTC)'
  svgEl('text', { x: 0, y: 0, 'text-anchor': 'middle', class: 'label',
    transform: `translate(14 ${(H - M.bottom + M.top) / 2}) rotate(-90)` }, axes).textContent = 'altitude MSL (m)'
  for (const stage of answer.prediction) {
    const d = stage.trajectory.map((p, k) =>
      `${k === 0 ? 'M' : 'L'}${x(Date.parse(p.datetime)).toFixed(1)},${y(p.altitude).toFixed(1)}`).join('')
    titled(svgEl('path', { d, class: `path ${stage.stage}`, 'data-stage': stage.stage,
      'data-points': stage.trajectory.length }, svg), `${stage.stage}: ${stage.trajectory.length} points`)
  }
  const cap = htmlEl('figcaption', {}, undefined, figure)
  htmlEl('strong', {}, 'Altitude against time', cap)
  for (const s of answer.prediction) {
    const item = htmlEl('span', { class: 'key' }, undefined, cap)
    const icon = svgEl('svg', { viewBox: '0 0 24 10', width: 24, height: 10, 'aria-hidden': 'true' }, item)
    svgEl('path', { d: 'M1,5H23', class: `path ${s.stage}` }, icon)
    item.append(` ${s.stage}`)
  }
}
