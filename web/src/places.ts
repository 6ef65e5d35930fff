// Town names on the bundled map: after every move, the biggest towns in view that the zoom level
// admits are placed, largest first, each only where its label does not cover one already placed;
// so zooming in brings smaller towns, never a pile of overlapping names.
import * as L from 'leaflet'
import type { Place } from './map-data.js'

/** The smallest town shown up to each zoom level (beyond the last: every town in the file). */
const MIN_POPULATION: Array<[maxZoom: number, people: number]> = [
  [3, 2_000_000], [4, 700_000], [5, 250_000], [6, 80_000], [7, 30_000], [8, 12_000]
]
/** Towns of a million or more are named in bold. */
const BIG = 1_000_000
/** Enough to read, few enough to redraw on every move. */
const MAX_LABELS = 160
/**
 * A label's box for the overlap test (style.css .place-name): from 3 px left of the town, the dot
 * and its gap (9 px), then the name, 16 px high; and 2 px of air around it.
 */
const LEFT = 3
const DOT = 9
const HALF_HEIGHT = 8
const AIR = 2

function minPopulation (zoom: number): number {
  for (const [maxZoom, people] of MIN_POPULATION) if (zoom <= maxZoom) return people
  return 0
}

export class PlaceLabels {
  readonly layer = L.layerGroup()
  /** Measures names in the labels' fonts: style.css .place-name (12 px) and .big (600, 13 px). */
  private readonly measure = document.createElement('canvas').getContext('2d')
  private readonly fonts: { big: string, normal: string }

  constructor (private readonly map: L.Map, private readonly places: Place[], private readonly pane: string) {
    const family = getComputedStyle(map.getContainer()).fontFamily
    this.fonts = { big: `600 13px ${family}`, normal: `12px ${family}` }
    map.on('moveend', () => this.update())
    this.update()
  }

  private update (): void {
    const map = this.map
    const view = map.getBounds()
    const size = map.getSize()
    const least = minPopulation(map.getZoom())
    // the controls (zoom, scale, attribution, pointer readout) count as names already placed
    const frame = map.getContainer().getBoundingClientRect()
    const placed: Array<[number, number, number, number]> = [...map.getContainer().querySelectorAll('.leaflet-control')]
      .map((c) => c.getBoundingClientRect())
      .map((r) => [r.left - frame.left, r.top - frame.top, r.right - frame.left, r.bottom - frame.top])
    this.layer.clearLayers()
    let named = 0
    for (const [name, lat, lon, people] of this.places) {
      if (people < least || named >= MAX_LABELS) break
      if (!view.contains([lat, lon])) continue
      const p = map.latLngToContainerPoint([lat, lon])
      const box: [number, number, number, number] = [p.x - LEFT - AIR, p.y - HALF_HEIGHT - AIR,
        p.x - LEFT + DOT + this.width(name, people) + AIR, p.y + HALF_HEIGHT + AIR]
      if (box[0] < 0 || box[1] < 0 || box[2] > size.x || box[3] > size.y) continue // a name cut by the edge reads wrong
      if (placed.some((b) => box[0] < b[2] && box[2] > b[0] && box[1] < b[3] && box[3] > b[1])) continue
      placed.push(box)
      this.layer.addLayer(this.label(name, lat, lon, people))
      named++
    }
  }

  private width (name: string, people: number): number {
    if (this.measure === null) return name.length * 7.5
    this.measure.font = people >= BIG ? this.fonts.big : this.fonts.normal
    return this.measure.measureText(name).width
  }

  private label (name: string, lat: number, lon: number, people: number): L.Marker {
    const el = document.createElement('span')
    el.className = people >= BIG ? 'place-name big' : 'place-name'
    el.textContent = name
    el.dataset.population = String(people)
    const icon = L.divIcon({ className: 'place', html: el, iconSize: [0, 0], iconAnchor: [0, 0] })
    return L.marker([lat, lon], { icon, interactive: false, keyboard: false, pane: this.pane })
  }
}
