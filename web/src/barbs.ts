// Wind barbs, the meteorologist's glyph: a staff pointing to where the wind comes from, a pennant
// per 50 knots, a full feather per 10 and a half feather per 5 (speeds rounded to 5 knots).
import { svgEl, titled } from './svg.js'
import { num } from './format.js'

const KNOTS_PER_MS = 3600 / 1852
const STAFF = 20
const FEATHER = 8
const GAP = 3.2

/** Barbs closer than this (px) would cross each other's feathers: a staff and its feathers need ~20 px. */
export const MIN_BARB_GAP = 18

export interface BarbAt {
  y: number
  altitude: number
  speedMs: number
  fromDeg: number
}

/**
 * A column of barbs at x, thinned from the lowest up so no two are closer than MIN_BARB_GAP: with
 * 32 heights in 300 px every one would tangle, and a skew-T thins its barbs the same way. Each
 * barb carries its height (data-altitude); the values of the skipped heights stay in the table.
 */
export function windBarbs (g: SVGGElement, x: number, barbs: BarbAt[]): number {
  let last = Infinity
  let drawn = 0
  for (const b of [...barbs].sort((a, c) => c.y - a.y)) {
    if (last - b.y < MIN_BARB_GAP) continue
    windBarb(g, x, b.y, b.speedMs, b.fromDeg).setAttribute('data-altitude', String(b.altitude))
    last = b.y
    drawn++
  }
  return drawn
}

/** One barb at (x, y) for a wind of `speedMs` blowing from `fromDeg` (clockwise from north). */
export function windBarb (g: SVGGElement, x: number, y: number, speedMs: number, fromDeg: number): SVGGElement {
  const knots = Math.round((speedMs * KNOTS_PER_MS) / 5) * 5
  const barb = svgEl('g', { class: 'barb', 'data-speed-ms': String(speedMs), 'data-direction-deg': String(fromDeg) }, g)
  titled(barb, `${num(speedMs, 1)} m/s (${knots} kn) from ${num(fromDeg, 0)}°`)
  if (knots < 5) {
    svgEl('circle', { cx: x, cy: y, r: 3.5, class: 'calm' }, barb)
    return barb
  }
  const rad = (fromDeg * Math.PI) / 180
  const dx = Math.sin(rad) // screen: x right, y down; north is up
  const dy = -Math.cos(rad)
  const px = -dy // the feather side: the staff turned a right angle clockwise on screen
  const py = dx
  const at = (along: number, side: number): string =>
    `${(x + dx * along + px * side).toFixed(1)},${(y + dy * along + py * side).toFixed(1)}`
  let d = `M${at(0, 0)}L${at(STAFF, 0)}`
  let pennants = ''
  let rest = knots
  let along = STAFF
  while (rest >= 50) {
    pennants += `M${at(along, 0)}L${at(along + 2, FEATHER)}L${at(along - GAP, 0)}Z`
    along -= GAP + 1
    rest -= 50
  }
  while (rest >= 10) {
    d += `M${at(along, 0)}L${at(along + 3, FEATHER)}`
    along -= GAP
    rest -= 10
  }
  if (rest >= 5) {
    if (along === STAFF) along -= GAP // a lone half feather stands off the tip, as on the charts
    d += `M${at(along, 0)}L${at(along + 1.5, FEATHER / 2)}`
  }
  svgEl('path', { d, class: 'staff' }, barb)
  if (pennants !== '') svgEl('path', { d: pennants, class: 'pennant' }, barb)
  svgEl('circle', { cx: x, cy: y, r: 1.6, class: 'station' }, barb)
  return barb
}
