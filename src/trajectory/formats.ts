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

/** How members that ended each way are counted in words ("47 left the data before landing"). */
const OUTCOME_WORDS: Record<FlightOutcome, string> = {
  landed: 'landed',
  float_ended: 'ended their float',
  left_source_coverage: 'left the data before landing',
  unusable_source_column: 'met unusable data before landing'
}

/**
 * Fewer landings than this make no spread worth showing: a 95th percentile of fewer than ten
 * distances is only their farthest, and a ring around a few landings of many looks like a tight
 * forecast (docs/DESIGN.md §9).
 */
export const MIN_LANDINGS_FOR_SPREAD = 10

/** An ensemble in words: how every member ended, and its landing spread or why there is none to show. */
export interface EnsembleWords {
  /** "50 members: 3 landed, 47 left the data before landing." */
  outcomes: string
  /** The spread over the landed members, their count beside it; or why no spread is shown. */
  spread: string
}

/** Whether an ensemble's landings make a spread worth showing (the ring): at least MIN_LANDINGS_FOR_SPREAD. */
export function spreadShown (ensemble: NonNullable<TrajectoryResponse['ensemble']>): boolean {
  return (ensemble.landing?.members_landed ?? 0) >= MIN_LANDINGS_FOR_SPREAD
}

export function ensembleWords (ensemble: NonNullable<TrajectoryResponse['ensemble']>,
  place: (latitude: number, longitude: number) => string): EnsembleWords {
  const counts = new Map<FlightOutcome, number>()
  for (const m of ensemble.members) counts.set(m.outcome, (counts.get(m.outcome) ?? 0) + 1)
  const n = ensemble.members.length
  const below = ensemble.members.filter((m) => m.started_below_model_ground === true).length
  const outcomes = `${n} members: ` + [...counts].sort((a, b) => b[1] - a[1])
    .map(([outcome, count]) => `${count === n && n > 2 ? 'all' : count} ${OUTCOME_WORDS[outcome]}`).join(', ') + '.' +
    (below === 0 ? '' : ` ${below} of them began the descent at or below the model ground and landed there at once.`)
  const s = ensemble.landing
  const landed = s?.members_landed ?? 0
  if (s === null || landed === 0) return { outcomes, spread: 'None landed: no landing spread.' }
  if (!spreadShown(ensemble)) {
    const few = landed === n
      ? `All ${n} landed, but fewer than ${MIN_LANDINGS_FOR_SPREAD} landings`
      : `Only ${landed} of ${n} landed: too few`
    return { outcomes, spread: `${few} for a landing spread to mean anything (at least ` +
      `${MIN_LANDINGS_FOR_SPREAD} are needed).` }
  }
  const km = (x: number): string => x.toFixed(1)
  const of = landed < n ? ` (of ${n})` : ''
  return { outcomes, spread: `Landing spread of the ${landed} landed${of} ` +
    `around their mean (${place(s.mean_latitude, s.mean_longitude)}): half within ${km(s.p50_distance_km)} km, ` +
    `95 % within ${km(s.p95_distance_km)} km, the farthest ${km(s.max_distance_km)} km.` }
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
