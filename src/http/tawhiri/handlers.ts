// The Tawhiri paths (docs/DESIGN.md §9): GET /api/v1/ and /tawhiri (a prediction by Tawhiri's
// rules, answered as Tawhiri's JSON or the fork's CSV and KML downloads), /api/datasetcheck (the
// newest run) and /api/ruaumoko/ (the ground's altitude). Who may call, CORS and the error shape
// are the app's and this room's (route-handler.ts, admission.ts, error.ts); here: parse → fly →
// write. A flight that cannot finish is refused, never answered with a path that stops in mid-air.
import type { ServerResponse } from 'node:http'
import {
  type DatasetCheck, type FlightOutcome, type Ruaumoko, rfc3339, type TrajectoryRequest
} from '../../contract/index.js'
import type { SourceDescription } from '../../source/index.js'
import { FlightInputError, type TawhiriAnswer, tawhiriCsv, tawhiriKml } from '../../trajectory/index.js'
import type { AppDeps, Handler, Handlers, Reply } from '../context.js'
import { goneSignal } from '../client-gone.js'
import { dataProblem } from '../data-problem.js'
import { HttpProblem, noDataPath } from '../problem.js'
import { type ReverseAsk, readTawhiriQuery, TawhiriQueryReader } from './request.js'
import { predictFlight } from '../routes/trajectory.js'

const query = (req: { query?: unknown }): Record<string, unknown> => (req.query ?? {}) as Record<string, unknown>

export function tawhiriHandlers (deps: AppDeps): Handlers {
  const predict: Handler = async ({ req, accountId, res }) => {
    const started = Date.now()
    const ask = readTawhiriQuery(query(req))
    const answer = ask.kind === 'reverse'
      ? await reverse(deps, ask.seen, accountId, res)
      : await flight(deps, ask.request, accountId, res)
    if (answer.outcome !== 'landed' && answer.outcome !== 'float_ended') {
      throw new HttpProblem('flight_incomplete', { detail: await incomplete(answer, deps) })
    }
    answer.body.metadata.start_datetime = rfc3339(started)
    if (ask.format === 'json') return { body: answer.body }
    return download(ask.format === 'csv' ? tawhiriCsv(answer.body) : tawhiriKml(answer.body))
  }
  return {
    tawhiri_predict: predict,
    tawhiri_predict_sondehub: predict,
    tawhiri_dataset_check: (async () => {
      const started = Date.now()
      const newest = newestRun(await describe(deps))
      const body: DatasetCheck = { request: { version: 1, dataset: newest.run }, warnings: {},
        metadata: metadata(started) }
      return { body }
    }) satisfies Handler,
    tawhiri_ruaumoko: (async ({ req, accountId }) => await ruaumoko(deps, query(req), accountId)) satisfies Handler
  }
}

async function ruaumoko (deps: AppDeps, q: Record<string, unknown>, accountId: string): Promise<Reply> {
  const started = Date.now()
  const read = new TawhiriQueryReader(q)
  const latitude = read.number('latitude', 'degrees north from -90 to 90', (x) => x >= -90 && x <= 90)
  const longitude = read.number('longitude', 'degrees east, from 0 up to (not including) 360, or -180 to 180',
    (x) => x >= -180 && x < 360)
  const service = deps.trajectories
  if (service === undefined) throw noDataPath('the model terrain')
  const newest = newestRun(await describe(deps))
  const firstHour = newest.forecast_hours[0]?.first ?? 0
  let altitude: number
  try {
    altitude = await service.terrain(latitude, longitude, Date.parse(newest.run) + firstHour * 3_600_000, accountId)
  } catch (err) {
    throw dataProblem(err)
  }
  const body: Ruaumoko = { request: { version: 1, latitude, longitude }, altitude, warnings: {},
    metadata: metadata(started) }
  return { body }
}

/** What a prediction came to: how it ended, and the answer to send when it ended well. */
interface Outcome { outcome: FlightOutcome, body: TawhiriAnswer }

async function flight (
  deps: AppDeps, request: TrajectoryRequest, accountId: string, res: ServerResponse
): Promise<Outcome> {
  const body = await predictFlight(deps, request, 'query', accountId, res).catch(async (err: unknown) => {
    throw err instanceof HttpProblem && err.code === 'outside_source_coverage' ? await uncovered(err, deps) : err
  })
  return { outcome: body.outcome, body }
}

/** reverse_profile: the balloon seen aloft flown back to the ground (the trajectory room's `reverse`). */
async function reverse (deps: AppDeps, seen: ReverseAsk, accountId: string, res: ServerResponse): Promise<Outcome> {
  const service = deps.trajectories
  if (service === undefined) throw noDataPath('trajectories')
  try {
    const { outcome, answer } = await service.reverse(seen, accountId, goneSignal(res))
    return { outcome, body: answer }
  } catch (err) {
    if (err instanceof FlightInputError) {
      throw new HttpProblem('invalid_request', { detail: `The request does not describe a flight: ${err.message}.` })
    }
    const problem = dataProblem(err)
    throw problem instanceof HttpProblem && problem.code === 'outside_source_coverage'
      ? await uncovered(problem, deps)
      : problem
  }
}

/** A launch the data does not cover: what it does cover, so a person knows what to change. */
async function uncovered (err: HttpProblem, deps: AppDeps): Promise<HttpProblem> {
  const area = await dataArea(deps)
  return new HttpProblem('outside_source_coverage', { ...err.options, detail: `${err.message} Launch where and ` +
    `when the data holds${area === undefined ? '' : ` (${area.text}`}; GET /v1/atmosphere/capabilities lists the ` +
    `times${area === undefined ? '' : ')'}, or pick another dataset.` })
}

function metadata (started: number): { start_datetime: string, complete_datetime: string } {
  return { start_datetime: rfc3339(started), complete_datetime: rfc3339(Date.now()) }
}

function download (file: { filename: string, mediaType: string, text: string }): Reply {
  return { body: file.text, mediaType: file.mediaType,
    headers: { 'Content-Disposition': `attachment; filename="${file.filename}"` } }
}

async function describe (deps: AppDeps): Promise<SourceDescription> {
  if (deps.source === undefined) throw noDataPath('the dataset')
  return await deps.source.describe()
}

function newestRun (d: SourceDescription): SourceDescription['runs'][number] {
  const newest = d.runs.reduce<SourceDescription['runs'][number] | undefined>(
    (a, r) => a === undefined || Date.parse(r.run) > Date.parse(a.run) ? r : a, undefined)
  if (newest === undefined) {
    throw new HttpProblem('outside_source_coverage', { detail: 'No matching dataset found: the source holds no ' +
      'model run yet. Try again once it has one (GET /v1/atmosphere/capabilities lists them).' })
  }
  return newest
}

/**
 * Where and when the flight left the data, which way (past the data's area, or past the times it
 * holds there), and what to change: the description a person reads in the page's error box or
 * chasemapper's log.
 */
async function incomplete ({ outcome, body }: Outcome, deps: AppDeps): Promise<string> {
  const stages = body.prediction
  const stage = stages[stages.length - 1]
  const p = stage.trajectory[stage.trajectory.length - 1]
  const lon = p.longitude > 180 ? p.longitude - 360 : p.longitude
  const profile = body.request.profile
  const area = await dataArea(deps)
  const why = outcome !== 'left_source_coverage'
    ? 'reached model data that cannot be used'
    : area === undefined ? 'left the model data' : inside(area, p.latitude, lon)
      ? 'reached a time the model data does not hold there' : `drifted out of the model data's area (${area.text})`
  const goal = profile === 'float_profile' ? 'reached stop_datetime' : profile === 'reverse_profile'
    ? 'reached the ground, back in time' : 'landed'
  const shorter = profile === 'float_profile' ? 'an earlier stop_datetime' : profile === 'reverse_profile'
    ? 'a lower launch_altitude or a higher ascent_rate' : 'a lower burst_altitude, a higher ascent_rate or descent_rate'
  return `Prediction did not complete: the flight ${why} at ${p.latitude.toFixed(5)}, ${lon.toFixed(5)}, ` +
    `${p.altitude.toFixed(0)} m, at ${p.datetime}, during its ${stage.stage}, before it ${goal}. Launch earlier ` +
    `or nearer the middle of the data, or shorten the flight (${shorter}); GET /v1/atmosphere/capabilities lists ` +
    'the times the data holds.'
}

interface DataArea { lat: { min: number, max: number }, lon: { min: number, max: number }, text: string }

async function dataArea (deps: AppDeps): Promise<DataArea | undefined> {
  const d = deps.source === undefined ? undefined : await deps.source.describe().catch(() => undefined)
  if (d === undefined || d.coverage === null) return undefined
  const { latitude: lat, longitude: lon } = d.coverage
  return { lat, lon, text: `latitudes ${lat.min}…${lat.max}, longitudes ${lon.min}…${lon.max}` }
}

/** Whether a point lies within the area, a grid step (0.25°) in from its edges. */
function inside (a: DataArea, lat: number, lon: number): boolean {
  const m = 0.25
  return lat > a.lat.min + m && lat < a.lat.max - m && lon > a.lon.min + m && lon < a.lon.max - m
}
