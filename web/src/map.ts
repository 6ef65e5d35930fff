// The map: Natural Earth land and borders (world-atlas, served by aloft itself: no tiles from the
// internet), the source's coverage, the chosen point and the predicted flight. A click picks a
// point; the latitude and longitude inputs do the same from the keyboard.
import { geoCircle, geoGraticule10, geoMercator, geoPath, type GeoProjection } from 'd3-geo'
import { feature, mesh } from 'topojson-client'
import type { Topology, GeometryCollection } from 'topojson-specification'
import type { TrajectoryResponse } from './api.js'
import { east } from '../../src/trajectory/formats.js'
import { svgEl, titled } from './svg.js'
import { latLon, num, utc } from './format.js'

declare const WORLD_URL: string

interface Bounds { lat: [number, number], lon: [number, number] }

const W = 640
const H = 420
const PAD_DEG = 0.6
/** Mercator is unbounded at the poles: a global coverage is shown to ±80°. */
const MAX_LAT = 80
/** A flight is shown with at least this much around it, in degrees. */
const MIN_FLIGHT_VIEW_DEG = 1.2

export class MapView {
  private readonly svg: SVGSVGElement
  private readonly base: SVGGElement
  private readonly flight: SVGGElement
  private readonly point: SVGGElement
  private projection: GeoProjection = geoMercator()
  private world: Topology | null = null
  private coverage: Bounds = { lat: [-MAX_LAT, MAX_LAT], lon: [-180, 180] }
  /** What the map shows: the coverage, or a flight and its surroundings. */
  private view: Bounds = this.coverage
  private picked: [number, number] | null = null
  private answer: TrajectoryResponse | null = null

  constructor (container: HTMLElement, private readonly onPick: (lat: number, lon: number) => void) {
    this.svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'map', role: 'img',
      'aria-label': 'Map: click to choose a point' }, container)
    this.base = svgEl('g', { class: 'base' }, this.svg)
    this.flight = svgEl('g', { class: 'flight' }, this.svg)
    this.point = svgEl('g', { class: 'picked' }, this.svg)
    this.svg.addEventListener('click', (ev) => this.click(ev))
  }

  async load (): Promise<void> {
    const res = await fetch(WORLD_URL)
    if (!res.ok) throw new Error(`the map's coastlines did not load (HTTP ${res.status})`)
    this.world = await res.json() as Topology
    this.drawBase()
  }

  setCoverage (lat: [number, number], lon: [number, number]): void {
    this.coverage = { lat: [Math.max(lat[0], -MAX_LAT), Math.min(lat[1], MAX_LAT)], lon }
    this.showCoverage()
  }

  /** Back to the whole coverage. */
  showCoverage (): void {
    this.view = this.coverage
    this.redraw()
  }

  private redraw (): void {
    this.drawBase()
    if (this.picked !== null) this.setPoint(...this.picked)
    this.drawFlight()
  }

  setPoint (lat: number, lon: number): void {
    this.picked = [lat, lon]
    this.point.replaceChildren()
    const p = this.projection([east(lon), lat])
    if (p === null) return
    const g = titled(svgEl('g', { class: 'point-marker', 'data-latitude': lat, 'data-longitude': lon }, this.point),
      `chosen point ${latLon(lat, lon)}`)
    svgEl('circle', { cx: p[0], cy: p[1], r: 6 }, g)
    svgEl('path', { d: `M${p[0] - 10},${p[1]}h20M${p[0]},${p[1] - 10}v20` }, g)
  }

  /** Shows a flight (null: none), the map zoomed to it and its ensemble's landings. */
  setFlight (answer: TrajectoryResponse | null): void {
    this.answer = answer
    if (answer === null) {
      this.flight.replaceChildren()
      return
    }
    const points = answer.prediction.flatMap((s) => s.trajectory)
    for (const m of answer.ensemble?.members ?? []) if (m.landing !== null) points.push(m.landing)
    const lats = points.map((p) => p.latitude)
    const lons = points.map((p) => east(p.longitude))
    const around = (lo: number, hi: number): [number, number] => {
      const pad = Math.max(0, MIN_FLIGHT_VIEW_DEG - (hi - lo)) / 2 + 0.1
      return [lo - pad, hi + pad]
    }
    this.view = { lat: around(Math.min(...lats), Math.max(...lats)), lon: around(Math.min(...lons), Math.max(...lons)) }
    this.redraw()
  }

  /** The flight's stages as lines (one vertex per trajectory point), burst and landing marked. */
  private drawFlight (): void {
    this.flight.replaceChildren()
    const answer = this.answer
    if (answer === null) return
    const ensemble = answer.ensemble
    if (ensemble !== undefined) this.drawEnsemble(ensemble)
    for (const stage of answer.prediction) {
      let d = ''
      for (const [k, pt] of stage.trajectory.entries()) {
        const p = this.projection([east(pt.longitude), pt.latitude])
        if (p !== null) d += `${k === 0 ? 'M' : 'L'}${p[0].toFixed(1)},${p[1].toFixed(1)}`
      }
      titled(svgEl('path', { d, class: `path ${stage.stage}`, 'data-stage': stage.stage,
        'data-points': stage.trajectory.length }, this.flight), `${stage.stage}: ${stage.trajectory.length} points`)
    }
    const stages = answer.prediction
    const ascent = stages.find((s) => s.stage === 'ascent')
    if (ascent !== undefined && stages.length > 1) {
      const b = ascent.trajectory[ascent.trajectory.length - 1]
      this.mark('burst', b.latitude, b.longitude, `burst at ${num(b.altitude, 0)} m, ${utc(b.datetime)}`)
    }
    const last = stages[stages.length - 1].trajectory
    const end = last[last.length - 1]
    this.mark('landing', end.latitude, end.longitude,
      `${stages[stages.length - 1].stage === 'descent' ? 'landing' : 'end'} ${latLon(end.latitude, end.longitude)}, ` +
      utc(end.datetime))
  }

  private drawEnsemble (ensemble: NonNullable<TrajectoryResponse['ensemble']>): void {
    const g = svgEl('g', { class: 'ensemble' }, this.flight)
    const spread = ensemble.landing
    if (spread !== null) {
      const circle = geoCircle().center([east(spread.mean_longitude), spread.mean_latitude])
        .radius(Math.max(spread.p95_distance_km, 0.01) / 111.195)()
      titled(svgEl('path', { d: geoPath(this.projection)(circle) ?? '', class: 'spread' }, g),
        `95 % of landings within ${num(spread.p95_distance_km, 1)} km of their mean`)
    }
    for (const m of ensemble.members) {
      if (m.landing === null) continue
      const p = this.projection([east(m.landing.longitude), m.landing.latitude])
      if (p === null) continue
      titled(svgEl('circle', { cx: p[0], cy: p[1], r: 2.5, class: 'member-landing' }, g),
        `member landing ${latLon(m.landing.latitude, m.landing.longitude)}`)
    }
  }

  private mark (kind: 'burst' | 'landing', lat: number, lon: number, label: string): void {
    const p = this.projection([east(lon), lat])
    if (p === null) return
    const g = titled(svgEl('g', { class: `mark ${kind}` }, this.flight), label)
    if (kind === 'burst') {
      svgEl('path', { d: `M${p[0]},${p[1] - 8}L${p[0] + 7},${p[1] + 5}L${p[0] - 7},${p[1] + 5}Z` }, g)
    } else {
      const [x, y] = p
      svgEl('path', { d: `M${x - 6},${y - 6}L${x + 6},${y + 6}M${x + 6},${y - 6}L${x - 6},${y + 6}` }, g)
    }
  }

  private drawBase (): void {
    const { lat, lon } = this.view
    const box = {
      type: 'MultiPoint' as const,
      coordinates: [[lon[0] - PAD_DEG, Math.max(lat[0] - PAD_DEG, -MAX_LAT)],
        [lon[1] + PAD_DEG, Math.min(lat[1] + PAD_DEG, MAX_LAT)]]
    }
    this.projection = geoMercator().fitExtent([[4, 4], [W - 4, H - 4]], box)
    const path = geoPath(this.projection)
    this.base.replaceChildren()
    svgEl('rect', { x: 0, y: 0, width: W, height: H, class: 'sea' }, this.base)
    svgEl('path', { d: path(geoGraticule10()) ?? '', class: 'graticule' }, this.base)
    if (this.world !== null) {
      const countries = this.world.objects.countries as GeometryCollection
      svgEl('path', { d: path(feature(this.world, this.world.objects.land as GeometryCollection)) ?? '',
        class: 'land' }, this.base)
      svgEl('path', { d: path(mesh(this.world, countries, (a, b) => a !== b)) ?? '', class: 'border' }, this.base)
    }
    const c = this.coverage
    const ring = [[c.lon[0], c.lat[0]], [c.lon[1], c.lat[0]], [c.lon[1], c.lat[1]], [c.lon[0], c.lat[1]],
      [c.lon[0], c.lat[0]]]
      .map(([x, y]) => this.projection([x, y]))
    if (ring.every((p) => p !== null)) {
      const d = ring.map((p, k) => `${k === 0 ? 'M' : 'L'}${p![0].toFixed(1)},${p![1].toFixed(1)}`).join('')
      titled(svgEl('path', { d, class: 'coverage' }, this.base),
        `source coverage ${num(c.lat[0], 2)}…${num(c.lat[1], 2)}° N, ${num(c.lon[0], 2)}…${num(c.lon[1], 2)}° E`)
    }
  }

  private click (ev: MouseEvent): void {
    const m = this.svg.getScreenCTM()
    if (m === null) return
    const pt = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse())
    const ll = this.projection.invert?.([pt.x, pt.y])
    if (ll === null || ll === undefined) return
    const lat = Math.round(ll[1] * 100) / 100
    const lon = Math.round(east(ll[0]) * 100) / 100
    this.setPoint(lat, lon)
    this.onPick(lat, lon)
  }
}
