// The bundled map, for when no tile server is configured or its tiles do not load: Natural Earth
// land, coast and country borders at 1:10m, lakes and rivers at 1:50m (one canvas:
// vector-canvas.ts), and town names that appear as you zoom in (places.ts), in panes under the
// flight.
import * as L from 'leaflet'
import { loadLines, loadPlaces } from './map-data.js'
import { vectorCanvas } from './vector-canvas.js'
import { PlaceLabels } from './places.js'

/**
 * Natural Earth (public domain) and GeoNames (CC BY 4.0, which asks for this credit), kept short to
 * leave the scale bar room; the page's footer says the rest.
 */
export const BASEMAP_ATTRIBUTION = '<a href="https://www.naturalearthdata.com/">Natural Earth</a> · ' +
  '<a href="https://www.geonames.org/" title="place names: GeoNames, CC BY 4.0">GeoNames</a>'

export class Basemap {
  constructor (private readonly map: L.Map) {
    map.createPane('basemap').classList.add('basemap-pane')
    map.createPane('labels').classList.add('labels-pane')
  }

  /** Loads and draws the lines, then the names: the map is usable before the names arrive. */
  async load (): Promise<void> {
    const container = this.map.getContainer()
    this.map.attributionControl.addAttribution(BASEMAP_ATTRIBUTION)
    const places = loadPlaces()
    vectorCanvas(await loadLines(), 'basemap').addTo(this.map)
    container.dataset.basemap = 'natural-earth'
    new PlaceLabels(this.map, await places, 'labels').layer.addTo(this.map)
    container.dataset.places = 'loaded'
  }
}
