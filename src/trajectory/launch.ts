// The launch, before anything flies: a pinned run must be one the source holds, and the launch
// must lie inside the source's coverage; its model terrain is the default launch altitude.
import { type TrajectoryRequest, rfc3339 } from '../contract/index.js'
import type { PlanSource } from '../samples/index.js'
import { HOUR_MS, SourceError } from '../source/index.js'
import { AIR_OK, AIR_OUTSIDE, airBatch, type Air } from './air-batch.js'
import { wrapLongitude } from './models.js'

/** A pinned run must be one the source holds with data near the launch (else a 404). */
export async function checkDataset (
  source: Pick<PlanSource, 'entriesNear'>, run: number, launchMs: number
): Promise<void> {
  const hour = Math.floor(launchMs / HOUR_MS) * HOUR_MS
  const entries = await source.entriesNear([hour])
  if (entries.some((e) => e.run === run)) return
  const runs = [...new Set(entries.map((e) => e.run))].sort((a, b) => b - a).map(rfc3339)
  throw new SourceError('outside_source_coverage', {
    detail: `dataset ${rfc3339(run)}: the source holds no such model run with data near the launch time` +
      (runs.length > 0 ? `; runs it holds there: ${runs.join(', ')}` : '') + '.'
  })
}

/** The model terrain at the launch (m MSL), read through the air; a 404 or 502 when it cannot be. */
export async function launchGround (
  air: Air, req: TrajectoryRequest, launchMs: number, run: number | undefined
): Promise<number> {
  const launch = airBatch(1)
  launch.n = 1
  launch.t[0] = launchMs / 1000
  launch.latitude[0] = req.launch_latitude
  launch.longitude[0] = wrapLongitude(req.launch_longitude)
  launch.altitude[0] = req.launch_altitude ?? 0
  await air(launch)
  if (launch.status[0] === AIR_OK) return launch.ground[0]
  const where = `(${req.launch_latitude}, ${req.launch_longitude}) at ${req.launch_datetime}`
  throw launch.status[0] === AIR_OUTSIDE
    ? new SourceError('outside_source_coverage', { detail: `The launch ${where} lies outside the source's ` +
      'coverage' + (run !== undefined ? ` for dataset ${rfc3339(run)}` : '') + '.' })
    : new SourceError('unusable_source_column', { detail: `The source's columns at the launch ${where} cannot ` +
      'be used.' })
}
