// A flight as the SondeHub fork of Tawhiri writes its downloads (format=csv|kml on the Tawhiri
// paths, docs/DESIGN.md §9): the same columns, digits, placemarks and file names, so a page's
// "download CSV / KML" links give what its users already open. Every point of every stage is
// written, a stage's first point repeating the previous stage's last, as the fork does. Only whole
// flights reach these files: one that leaves the data is refused before (a landing here is one).
import type { ReverseResponse, TrajectoryPoint, TrajectoryResponse } from '../contract/index.js'
import { east } from './formats.js'

export interface TawhiriFile { filename: string, mediaType: string, text: string }

/** What the Tawhiri paths answer: a flight, or a reverse_profile's way back to the ground. */
export type TawhiriAnswer = TrajectoryResponse | ReverseResponse

const every = (answer: TawhiriAnswer): TrajectoryPoint[] => answer.prediction.flatMap((s) => s.trajectory)

interface KmlParts { info: string, lineWhat: string, marks: string }

function flightKml (answer: TrajectoryResponse): KmlParts {
  const r = answer.request
  const first = answer.prediction[0].trajectory
  const last = answer.prediction[answer.prediction.length - 1].trajectory
  const site = `at site: ${r.launch_latitude.toFixed(4)},${r.launch_longitude.toFixed(4)}`
  const standard = r.profile === 'standard_profile'
  const lineWhat = standard
    ? `Ascent rate: ${r.ascent_rate.toFixed(1)}, descent rate: ${(r.descent_rate ?? 0).toFixed(1)}, with burst at ` +
      `${(r.burst_altitude ?? 0).toFixed(1)}m.`
    : `Ascent rate: ${r.ascent_rate.toFixed(1)}, with float at ${(r.float_altitude ?? 0).toFixed(1)}m.`
  const info = standard
    ? `Flight Data for start time ${r.launch_datetime}, ${site}, standard flight profile.`
    : `Flight Data for start time ${r.launch_datetime}, ${site}, float profile, with ` +
      `${(r.float_altitude ?? 0).toFixed(1)}m float.`
  const marks = placemark('Balloon Launch', 'Balloon launch', first[0]) + (standard
    ? placemark('Balloon Burst', 'Balloon burst', first[first.length - 1]) +
      placemark('Balloon Landing', 'Balloon landing', last[last.length - 1])
    : placemark('Float Start', 'Float start', first[first.length - 1]) +
      placemark('Prediction End', 'Prediction end', last[last.length - 1]))
  return { info, lineWhat, marks }
}

function reverseKml (answer: ReverseResponse): KmlParts {
  const r = answer.request
  const first = answer.prediction[0].trajectory
  const last = answer.prediction[answer.prediction.length - 1].trajectory
  return {
    info: `Reverse prediction for start time ${r.launch_datetime}, at start point: ${r.launch_latitude.toFixed(4)},` +
      `${r.launch_longitude.toFixed(4)} at ${r.launch_altitude.toFixed(4)}m altitude.`,
    lineWhat: `Reverse Prediction with ascent rate: ${r.ascent_rate.toFixed(1)}, with start altitude at ` +
      `${r.launch_altitude.toFixed(1)}m.`,
    marks: placemark('Start', 'Start', first[0]) +
      placemark('Launch Prediction', 'Launch predicted', last[last.length - 1])
  }
}

/** `20200804-120000Z_52.2297_21.0122_standard_profile_2020080412Z.<ext>`, the fork's name. */
function filename (answer: TawhiriAnswer, ext: string): string {
  const r = answer.request
  const launch = r.launch_datetime.replace(/\.\d+/, '')
  const start = `${launch.slice(0, 10).replace(/-/g, '')}-${launch.slice(11, 19).replace(/:/g, '')}Z`
  const run = `${r.dataset.slice(0, 10).replace(/-/g, '')}${r.dataset.slice(11, 13)}Z`
  return `${start}_${r.launch_latitude.toFixed(4)}_${r.launch_longitude.toFixed(4)}_${r.profile}_${run}.${ext}`
}

export function tawhiriCsv (answer: TawhiriAnswer): TawhiriFile {
  let text = 'datetime,latitude,longitude,altitude\n'
  for (const p of every(answer)) {
    text += `${p.datetime},${p.latitude.toFixed(5)},${east(p.longitude).toFixed(5)},${p.altitude.toFixed(1)}\n`
  }
  return { filename: filename(answer, 'csv'), mediaType: 'text/csv; charset=utf-8', text }
}

const at = (p: TrajectoryPoint): string =>
  `${east(p.longitude).toFixed(5)},${p.latitude.toFixed(5)},${p.altitude.toFixed(1)}`

function placemark (name: string, what: string, p: TrajectoryPoint): string {
  return `
<Placemark>
<name>${name}</name>
<description>${what} at ${p.latitude.toFixed(5)},${east(p.longitude).toFixed(5)}, at ${p.datetime}.</description>
<Point><altitudeMode>absolute</altitudeMode><coordinates>${at(p)}</coordinates></Point>
</Placemark>
`
}

export function tawhiriKml (answer: TawhiriAnswer): TawhiriFile {
  const { info, lineWhat, marks } = answer.request.profile === 'reverse_profile'
    ? reverseKml(answer as ReverseResponse)
    : flightKml(answer as TrajectoryResponse)
  const text = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
<Document>
<name>Flight Path</name>
<description>${info}</description>
<Style id="yellowPoly">
<LineStyle>
<color>7f00ffff</color>
<width>4</width>
</LineStyle>
<PolyStyle>
<color>7f00ff00</color>
</PolyStyle>
</Style>
<Placemark>
<name>Flight path</name>
<description>${lineWhat}</description>
<styleUrl>#yellowPoly</styleUrl>
<LineString>
<extrude>1</extrude>
<tesselate>1</tesselate>
<altitudeMode>absolute</altitudeMode>
<coordinates>
${every(answer).map((p) => `${at(p)}\n`).join('')}
</coordinates>
</LineString></Placemark>
${marks}
</Document></kml>
`
  return { filename: filename(answer, 'kml'), mediaType: 'application/vnd.google-earth.kml+xml', text }
}
