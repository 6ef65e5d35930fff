// The profile path (docs/DESIGN.md §5): resolve (source) → the decoded unit (field room: cache,
// fetch, decode) → interpolate one grid point's column (main thread, or a worker on the same
// shared tile) → response with provenance.
import { gridPointIndex } from '../grib/index.js'
import { PROVENANCE_DEFAULTS } from '../atmosphere/methods.js'
import { computeProfile, type ProfileResult } from '../atmosphere/index.js'
import type { AtmosphereRequest, AtmosphereResponse } from '../contract/schemas.js'
import { isoTime, type Source } from '../source/index.js'
import { UnusableUnitError, type Field } from '../field/index.js'
import { interpolateInWorker } from './task.js'

export type InterpolateIn = 'worker' | 'main'

export interface ProfileServiceOptions {
  source: Source
  field: Field
  interpolateIn: InterpolateIn
}

/** A refusal of the profile path, in the vocabulary of the contract's problem codes. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError'
  constructor (
    readonly code: 'outside_vertical_range' | 'unusable_source_column',
    readonly detail: string,
    readonly coverage?: AtmosphereResponse['coverage']
  ) {
    super(detail)
  }
}

export class ProfileService {
  readonly #options: ProfileServiceOptions

  constructor (options: ProfileServiceOptions) {
    this.#options = options
  }

  async profile (request: AtmosphereRequest, accountId: string): Promise<AtmosphereResponse> {
    const { source, field } = this.#options
    const time = new Date(request.time)
    const deadline = source.deadline()
    const resolution = await source.resolve({
      latitude: request.latitude,
      longitude: request.longitude,
      time,
      quality: request.quality ?? 'best_available',
      accountId
    })
    const { unit } = await field.load(resolution, accountId, deadline)
    const point = gridPointIndex(unit.layout.grid, resolution.point.latitude, resolution.point.longitude)
    if (point === null) throw new UnusableUnitError('the source unit does not hold the requested grid point')
    const wanted = {
      altitudes_m: request.altitudes_m,
      altitude_reference: request.altitude_reference,
      ground_elevation_m_msl: request.ground_elevation_m_msl
    }
    const result: ProfileResult = this.#options.interpolateIn === 'main'
      ? computeProfile(field.column(unit, point.i, point.j), wanted)
      : await interpolateInWorker(field.pool,
        { layout: unit.layout, values: unit.values, i: point.i, j: point.j, request: wanted })
    if (!result.ok) {
      if (result.error === 'outside_vertical_range') {
        const heights = `${result.outside_altitudes_m.join(', ')} m ${request.altitude_reference.toUpperCase()}`
        throw new ProfileError('outside_vertical_range',
          `Height(s) ${heights} lie outside the column at this point.`, result.coverage)
      }
      throw new ProfileError('unusable_source_column',
        `The source column at this point cannot be used: ${result.detail}.`)
    }
    const validTime = unit.run.getTime() + unit.step * 3_600_000
    return {
      latitude: request.latitude,
      longitude: request.longitude,
      requested_time: isoTime(time.getTime()),
      valid_time: isoTime(validTime),
      altitude_reference: request.altitude_reference,
      ground_elevation_m_msl: result.ground_elevation_m_msl,
      model_ground_elevation_m_msl: result.model_ground_elevation_m_msl,
      supplied_ground_elevation_m_msl: result.supplied_ground_elevation_m_msl,
      ground_source: result.ground_source,
      coverage: result.coverage,
      levels: result.levels,
      provenance: {
        model_run_at: isoTime(unit.run.getTime()),
        forecast_hour: unit.step,
        quality: unit.step === 0 ? 'analysis' : 'forecast',
        retrieved_at: isoTime(unit.retrievedAt.getTime()),
        sampled_latitude: point.latitude,
        sampled_longitude: point.longitude,
        source_sha256: unit.sha256,
        specific_humidity_source: result.specific_humidity_source,
        ...PROVENANCE_DEFAULTS
      }
    }
  }
}
