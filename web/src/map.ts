// The map (Leaflet): the operator's tiles when the page names a tile server (tiles.ts), else (or
// when those tiles do not load) the bundled Natural Earth map (basemap.ts); a scale bar, the
// pointer's latitude and longitude, the source's coverage, the chosen point and the predicted
// flight. A click picks a point; the latitude and longitude inputs do the same from the keyboard.
import * as L from 'leaflet'
import type { TrajectoryResponse } from './api.js'
import { east } from '../../src/trajectory/formats.js'
import { attributionHtml, tileSetting, type TileConfig } from './tiles.js'
import { Basemap } from './basemap.js'
import { drawFlight } from './flight-layer.js'
import { pointerReadout } from './map-controls.js'
import { latLon, num } from './format.js'

/** How far (px) a flight's mark reaches beyond its point: the largest glyph's half, and a margin. */
const MARK_REACH = 18
/** Web Mercator stops at ±85°; a global coverage is framed to ±80°. */
const MAX_LAT = 80
/** A flight is framed with at least this much around it (degrees), so its surroundings show. */
const MIN_FLIGHT_VIEW_DEG = 0.6
/** The bundled data holds detail down to about this zoom (1:10m); tiles go further. */
const BASEMAP_MAX_ZOOM = 11
const TILES_MAX_ZOOM = 18

export class MapView {
  private readonly map: L.Map
  private readonly flight = L.layerGroup()
  private readonly marker: L.Marker
  private coverage = L.latLngBounds([-MAX_LAT, -180], [MAX_LAT, 180])
  private coverageBox: L.Rectangle | null = null
  private basemap: Basemap | null = null
  /** Leaflet drops a zoom asked for while it animates another: a flight's frame waits for the animation's end. */
  private zooming = false
  private pendingFit: L.LatLngBounds | null = null

  constructor (container: HTMLElement, private readonly onPick: (lat: number, lon: number) => void) {
    container.setAttribute('aria-label', 'Map: click to choose a point')
    this.map = L.map(container, { worldCopyJump: true, zoomSnap: 0.5, minZoom: 1, maxZoom: BASEMAP_MAX_ZOOM })
    this.map.attributionControl.setPrefix('<a href="https://leafletjs.com/">Leaflet</a>')
    L.control.scale({ imperial: false, maxWidth: 140 }).addTo(this.map)
    pointerReadout().addTo(this.map)
    this.flight.addTo(this.map)
    this.marker = L.marker([0, 0], { icon: L.divIcon({ className: 'point-icon', html: '', iconSize: [22, 22] }),
      interactive: false, keyboard: false })
    this.map.fitBounds(this.coverage)
    this.map.on('zoomanim', () => { this.zooming = true })
    this.map.on('zoomend', () => {
      this.zooming = false
      const pending = this.pendingFit
      this.pendingFit = null
      if (pending !== null) this.fit(pending)
    })
    this.map.on('click', (ev) => {
      const lat = Math.round(ev.latlng.lat * 100) / 100
      const lon = Math.round(east(ev.latlng.wrap().lng) * 100) / 100
      this.setPoint(lat, lon)
      this.onPick(lat, lon)
    })
  }

  /** The background: configured tiles, or the bundled map (also when the tiles fail to load). */
  async load (): Promise<void> {
    const setting = tileSetting()
    if (setting.kind === 'tiles') {
      this.useTiles(setting.config)
      return
    }
    if (setting.kind === 'unusable') this.note(`The configured map tiles cannot be used (${setting.why}).`)
    await this.useBasemap()
  }

  private useTiles (config: TileConfig): void {
    this.map.setMaxZoom(TILES_MAX_ZOOM)
    // the page sends no Referer (Referrer-Policy: no-referrer); tile servers such as OpenStreetMap's ask
    // for one to tell sites apart, so tiles alone carry this page's origin (never its path or query)
    const tiles = L.tileLayer(config.url, {
      attribution: attributionHtml(config.attribution), maxZoom: TILES_MAX_ZOOM, referrerPolicy: 'strict-origin'
    })
    let loaded = false
    tiles.on('tileload', () => { loaded = true })
    tiles.on('tileerror', () => {
      if (loaded || this.basemap !== null) return
      // none has ever loaded: offline, or the server refuses us; the bundled map instead
      this.map.removeLayer(tiles)
      this.map.setMaxZoom(BASEMAP_MAX_ZOOM)
      this.note('The map tiles did not load; showing the bundled map.')
      void this.useBasemap().catch((err: Error) => this.note(err.message))
    })
    tiles.addTo(this.map)
    this.map.getContainer().dataset.basemap = 'tiles'
  }

  private async useBasemap (): Promise<void> {
    this.basemap = new Basemap(this.map)
    await this.basemap.load()
  }

  /** A sentence under the map about its background. */
  private note (text: string): void {
    const p = document.getElementById('map-note')
    if (p === null) return
    p.textContent = text
    p.hidden = false
  }

  setCoverage (lat: [number, number], lon: [number, number]): void {
    const west = lon[1] - lon[0] >= 359 ? -180 : east(lon[0])
    const width = Math.min(lon[1] - lon[0], 360)
    this.coverage = L.latLngBounds([Math.max(lat[0], -MAX_LAT), west], [Math.min(lat[1], MAX_LAT), west + width])
    this.coverageBox?.remove()
    this.coverageBox = L.rectangle(L.latLngBounds([lat[0], west], [lat[1], west + width]),
      { className: 'coverage', interactive: false, fill: false }).addTo(this.map)
    const el = this.coverageBox.getElement()
    if (el !== undefined) {
      const title = document.createElementNS('http://www.w3.org/2000/svg', 'title')
      title.textContent = `source coverage ${num(lat[0], 2)}…${num(lat[1], 2)}° N, ` +
        `${num(lon[0], 2)}…${num(lon[1], 2)}° E`
      el.appendChild(title)
    }
    this.showCoverage()
  }

  /** Back to the whole coverage. */
  showCoverage (): void {
    this.map.fitBounds(this.coverage)
  }

  setPoint (lat: number, lon: number): void {
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) return
    this.marker.setLatLng([lat, east(lon)])
    if (!this.map.hasLayer(this.marker)) this.marker.addTo(this.map)
    const el = this.marker.getElement()
    if (el === undefined) return
    el.classList.add('point-marker')
    el.dataset.latitude = String(lat)
    el.dataset.longitude = String(lon)
    el.title = `chosen point ${latLon(lat, lon)}`
  }

  /** Shows a flight (null: none), the map zoomed to it and its surroundings. */
  setFlight (answer: TrajectoryResponse | null): void {
    if (answer === null) {
      this.flight.clearLayers()
      return
    }
    const bounds = drawFlight(this.flight, answer)
    const c = bounds.getCenter()
    const half = MIN_FLIGHT_VIEW_DEG / 2
    bounds.extend([c.lat - half, c.lng - half]).extend([c.lat + half, c.lng + half])
    this.fit(bounds)
  }

  /** Frames `bounds` now, or (a flight answered within another's zoom) once the zoom under way ends. */
  private fit (bounds: L.LatLngBounds): void {
    if (this.zooming) this.pendingFit = bounds
    else this.map.fitBounds(bounds, this.clearOfControls())
  }

  /**
   * Padding that keeps a framed flight out from under the map's controls (the pointer readout and
   * the zoom buttons above, the attribution below): a landing drawn under "Point at the map…" was
   * hidden from the person looking for it, at phone width its float end too.
   */
  private clearOfControls (): L.FitBoundsOptions {
    const box = this.map.getContainer().getBoundingClientRect()
    let top = 0
    let bottom = 0
    for (const el of this.map.getContainer().querySelectorAll('.leaflet-control')) {
      const r = el.getBoundingClientRect()
      if (r.width === 0 || r.height === 0) continue
      if (r.top + r.height / 2 < box.top + box.height / 2) top = Math.max(top, r.bottom - box.top)
      else bottom = Math.max(bottom, box.bottom - r.top)
    }
    // a mark's glyph reaches MARK_REACH px beyond its point; a short map keeps at least a fifth of itself to frame in
    const room = Math.max(0, box.height * 0.8 - 2 * MARK_REACH)
    const share = top + bottom > room ? room / (top + bottom) : 1
    return { paddingTopLeft: [MARK_REACH, top * share + MARK_REACH],
      paddingBottomRight: [MARK_REACH, bottom * share + MARK_REACH] }
  }
}
