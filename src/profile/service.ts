// The profile path (docs/DESIGN.md §5): resolve (source) → the decoded unit (field room: cache,
// fetch, decode) → interpolate one grid point's column (main thread, or a worker on the same
// shared tile) → response with provenance.
import { gridPointIndex } from '../grib/index.js'
import {
  PROVENANCE_DEFAULTS, computeProfile, surfaceLayerMethods, surfaceLayerNodes, type ProfileResult,
  type SurfaceLayerState
} from '../atmosphere/index.js'
import { type AtmosphereRequest, type AtmosphereResponse, rfc3339Kept } from '../contract/index.js'
import { type Source } from '../source/index.js'
import { UnusableUnitError, type Field } from '../field/index.js'
import { interpolateInWorker } from './task.js'
import { ResponseCache } from './response-cache.js'
import { Gauge, type Registry } from 'prom-client'

/** Answers kept for exact repeats: enough for tens of thousands of typical answers. */
export const RESPONSE_CACHE_BYTES = 32 * 1024 * 1024
/** How long a kept answer may be served without a resolve (see ResponseCache). */
export const RESPONSE_CACHE_MAX_AGE_MS = 30_000

export type InterpolateIn = 'worker' | 'main'

export interface ProfileServiceOptions {
  source: Source
  field: Field
  interpolateIn: InterpolateIn
  /** Where the kept answers' figures are published. */
  registry?: Registry
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
  /** Answers to exact repeats (the HTTP route consults it with the raw body). */
  readonly responses: ResponseCache

  constructor (options: ProfileServiceOptions) {
    this.#options = options
    this.responses = new ResponseCache({
      maxBytes: RESPONSE_CACHE_BYTES, maxAgeMs: RESPONSE_CACHE_MAX_AGE_MS, generation: () => this.generation()
    })
    if (options.registry !== undefined) {
      const { responses } = this
      /* eslint-disable no-new -- a collected gauge registers itself */
      new Gauge({
        name: 'aloft_profile_repeat_lookups', help: 'Profile requests looked up among the answers kept for exact ' +
          'repeats, by result (hit, miss), since start', labelNames: ['result'], registers: [options.registry],
        collect () {
          this.set({ result: 'hit' }, responses.stats.hits)
          this.set({ result: 'miss' }, responses.stats.misses)
        }
      })
      new Gauge({
        name: 'aloft_profile_repeat_bytes', help: 'Bytes of profile answers kept for exact repeats',
        registers: [options.registry], collect () { this.set(responses.bytes) }
      })
      /* eslint-enable no-new */
    }
  }

  /** Changes whenever any answer could (the source's listings and units, the decoded units). */
  generation (): number {
    return this.#options.source.generation() + this.#options.field.cache.generation
  }

  async profile (request: AtmosphereRequest, accountId: string): Promise<AtmosphereResponse> {
    return (await this.answer(request, accountId)).response
  }

  /**
   * The profile, and whether it is the same for every caller (the newest run's unit was cached,
   * nothing substituted): only such answers may be kept for repeats.
   */
  async answer (request: AtmosphereRequest, accountId: string): Promise<{ response: AtmosphereResponse,
    sharable: boolean }> {
    const { source, field } = this.#options
    const time = new Date(request.time)
    const deadline = source.deadline()
    const resolution = await field.resolve({
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
    const surfaceLayer = request.surface_layer === true
    const result: ProfileResult = this.#options.interpolateIn === 'main'
      ? computeProfile(field.column(unit, point.i, point.j, surfaceLayer), wanted)
      : await interpolateInWorker(field.pool,
        { layout: unit.layout, values: unit.values, i: point.i, j: point.j, request: wanted, surfaceLayer })
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
    const sharable = resolution.cached && resolution.substitution === null
    const response: AtmosphereResponse = {
      latitude: request.latitude,
      longitude: request.longitude,
      requested_time: rfc3339Kept(time.getTime()),
      valid_time: rfc3339Kept(validTime),
      altitude_reference: request.altitude_reference,
      ground_elevation_m_msl: result.ground_elevation_m_msl,
      model_ground_elevation_m_msl: result.model_ground_elevation_m_msl,
      supplied_ground_elevation_m_msl: result.supplied_ground_elevation_m_msl,
      ground_source: result.ground_source,
      coverage: result.coverage,
      levels: result.levels,
      provenance: {
        model_run_at: rfc3339Kept(unit.run.getTime()),
        forecast_hour: unit.step,
        quality: unit.step === 0 ? 'analysis' : 'forecast',
        retrieved_at: rfc3339Kept(unit.retrievedAt.getTime()),
        sampled_latitude: point.latitude,
        sampled_longitude: point.longitude,
        source_sha256: unit.sha256,
        specific_humidity_source: result.specific_humidity_source,
        ...PROVENANCE_DEFAULTS,
        ...surfaceLayerProvenance(result.surface_layer, unit.layout.surfacePresent)
      }
    }
    return { response, sharable }
  }
}

/**
 * Provenance's surface_layer, and with the layer joined the heights of its nodes (the unit's fields
 * `used`), its dataset and method (docs/DESIGN.md §8).
 */
function surfaceLayerProvenance (
  state: SurfaceLayerState | null, used: readonly boolean[]
): Partial<AtmosphereResponse['provenance']> {
  if (state === null) return {}
  return state === 'unavailable'
    ? { surface_layer: state }
    : { surface_layer: state, surface_layer_nodes: surfaceLayerNodes(used),
        ...surfaceLayerMethods(PROVENANCE_DEFAULTS.vertical_interpolation) }
}
