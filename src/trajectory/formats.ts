// A predicted flight as the files mapping tools read: GeoJSON and KML. Pure (no I/O), so the CLI
// and the web explorer write the same file.
import type { TrajectoryPoint, TrajectoryResponse } from '../contract/index.js'

/** Longitude in (−180, 180], as GeoJSON and KML readers expect. */
export function east (lon: number): number {
  return lon > 180 ? lon - 360 : lon
}

export function flightPath (answer: TrajectoryResponse): TrajectoryPoint[] {
  // each stage starts at the previous one's end: that point once
  return answer.prediction.flatMap((s, k) => k === 0 ? s.trajectory : s.trajectory.slice(1))
}

export function geojson (answer: TrajectoryResponse): object {
  const all = flightPath(answer)
  const point = (name: string, p: TrajectoryPoint): object => ({
    type: 'Feature',
    properties: { name, datetime: p.datetime },
    geometry: { type: 'Point', coordinates: [east(p.longitude), p.latitude, p.altitude] }
  })
  const marks = [point('launch', all[0])]
  if (answer.prediction.length > 1) marks.push(point('burst', answer.prediction[1].trajectory[0]))
  marks.push(point('landing', all[all.length - 1]))
  return {
    type: 'FeatureCollection',
    features: [{
      type: 'Feature',
      properties: { name: 'flight', launch_datetime: answer.request.launch_datetime },
      geometry: { type: 'LineString', coordinates: all.map((p) => [east(p.longitude), p.latitude, p.altitude]) }
    }, ...marks]
  }
}

export function kml (answer: TrajectoryResponse): string {
  const coordinates = flightPath(answer).map((p) => `${east(p.longitude)},${p.latitude},${p.altitude}`).join(' ')
  return '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document>' +
    `<name>aloft flight ${answer.request.launch_datetime}</name><Placemark><name>flight</name><LineString>` +
    `<altitudeMode>absolute</altitudeMode><coordinates>${coordinates}</coordinates></LineString></Placemark>` +
    '</Document></kml>\n'
}
