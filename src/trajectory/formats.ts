// A predicted flight as the files mapping tools read: GeoJSON and KML, and the names of its marked
// points. Pure (no I/O), so the CLI, the web explorer and the files all name a point the same way.
import type { FlightOutcome, TrajectoryPoint, TrajectoryResponse } from '../contract/index.js'

/** Longitude in (−180, 180], as GeoJSON and KML readers expect. */
export function east (lon: number): number {
  return lon > 180 ? lon - 360 : lon
}

export function flightPath (answer: TrajectoryResponse): TrajectoryPoint[] {
  // each stage starts at the previous one's end: that point once
  return answer.prediction.flatMap((s, k) => k === 0 ? s.trajectory : s.trajectory.slice(1))
}

/**
 * The last point's name for each outcome (docs/DESIGN.md §9): a chase team drives to what is
 * called a landing, so only a flight that reached the ground has one.
 */
export const END_NAMES: Record<FlightOutcome, string> = {
  landed: 'landing',
  float_ended: 'float end',
  left_source_coverage: 'left the data here',
  unusable_source_column: 'unusable data here'
}

export type MarkKind = 'launch' | 'burst' | 'float_start' | FlightOutcome

/** A named point of the flight. */
export interface FlightMark { kind: MarkKind, name: string, point: TrajectoryPoint }

/**
 * Launch, where the second stage starts (a burst, or a float's start: a float never bursts) and
 * the last point, named by how the flight ended.
 */
export function flightMarks (answer: TrajectoryResponse): FlightMark[] {
  const stages = answer.prediction
  const first = stages[0].trajectory[0]
  const marks: FlightMark[] = [{ kind: 'launch', name: 'launch', point: first }]
  const second = stages[1]
  if (second !== undefined) {
    const kind = second.stage === 'float' ? 'float_start' : 'burst'
    marks.push({ kind, name: kind === 'burst' ? 'burst' : 'float start', point: second.trajectory[0] })
  }
  const last = stages[stages.length - 1].trajectory
  marks.push({ kind: answer.outcome, name: END_NAMES[answer.outcome], point: last[last.length - 1] })
  return marks
}

export function geojson (answer: TrajectoryResponse): object {
  const all = flightPath(answer)
  const point = (m: FlightMark): object => ({
    type: 'Feature',
    properties: { name: m.name, datetime: m.point.datetime },
    geometry: { type: 'Point', coordinates: [east(m.point.longitude), m.point.latitude, m.point.altitude] }
  })
  return {
    type: 'FeatureCollection',
    features: [{
      type: 'Feature',
      properties: { name: 'flight', launch_datetime: answer.request.launch_datetime, outcome: answer.outcome },
      geometry: { type: 'LineString', coordinates: all.map((p) => [east(p.longitude), p.latitude, p.altitude]) }
    }, ...flightMarks(answer).map(point)]
  }
}

const coordinate = (p: TrajectoryPoint): string => `${east(p.longitude)},${p.latitude},${p.altitude}`

export function kml (answer: TrajectoryResponse): string {
  const coordinates = flightPath(answer).map(coordinate).join(' ')
  const marks = flightMarks(answer).map((m) => `<Placemark><name>${m.name}</name><TimeStamp><when>` +
    `${m.point.datetime}</when></TimeStamp><Point><altitudeMode>absolute</altitudeMode><coordinates>` +
    `${coordinate(m.point)}</coordinates></Point></Placemark>`).join('')
  return '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document>' +
    `<name>aloft flight ${answer.request.launch_datetime}</name><Placemark><name>flight</name><LineString>` +
    `<altitudeMode>absolute</altitudeMode><coordinates>${coordinates}</coordinates></LineString></Placemark>` +
    `${marks}</Document></kml>\n`
}
