// The pointer's latitude and longitude in the map's corner, as it moves (3 decimals, ~100 m):
// a person can read where a place on the map is before clicking it.
import * as L from 'leaflet'
import { east } from '../../src/trajectory/formats.js'
import { latLon } from './format.js'

const IDLE = 'Point at the map for its coordinates'

export function pointerReadout (): L.Control {
  const Readout = L.Control.extend({
    onAdd (map: L.Map): HTMLElement {
      const box = L.DomUtil.create('div', 'pointer-readout')
      box.id = 'map-pointer'
      box.textContent = IDLE
      map.on('mousemove', (ev: L.LeafletMouseEvent) => {
        const ll = ev.latlng.wrap()
        box.textContent = latLon(ll.lat, east(ll.lng))
        box.dataset.latitude = String(ll.lat)
        box.dataset.longitude = String(ll.lng)
      })
      map.on('mouseout', () => {
        box.textContent = IDLE
        delete box.dataset.latitude
        delete box.dataset.longitude
      })
      return box
    }
  })
  return new Readout({ position: 'topright' })
}
