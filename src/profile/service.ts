// The profile path (DESIGN §5): resolve (source) → decoded-unit cache → on a miss, fetch
// (source: allowance, single flight, throttle) → decode in a worker into a shared tile →
// interpolate (worker, or main thread on the same tile) → response with provenance.
import { Counter, Gauge, type Registry } from 'prom-client'
import { gridPointIndex } from '../grib/index.js'
import { PROVENANCE_DEFAULTS } from '../atmosphere/methods.js'
import { computeProfile, type Column, type ProfileResult } from '../atmosphere/index.js'
import type { AtmosphereRequest, AtmosphereResponse } from '../contract/schemas.js'
import { isoTime, type Source } from '../source/index.js'
import { UnitCache } from './cache.js'
import type { WorkerPool } from './pool.js'
import { columnOf, type InterpolateTask } from './tasks.js'
import type { GridBox, TileLayout } from './tile.js'

/** A decoded unit (or block of one) in the cache. */
export interface DecodedUnit {
  key: string
  unitKey: string
  bytes: number
  layout: TileLayout
  values: Float32Array
  run: Date
  step: number
  sha256: string
  retrievedAt: Date
}

export type InterpolateIn = 'worker' | 'main'

export interface ProfileServiceOptions {
  source: Source
  pool: WorkerPool
  registry: Registry
  /** Byte budget of decoded units kept in memory. */
  cacheBytes: number
  interpolateIn: InterpolateIn
}

/**
 * Filled columns kept per decoded unit (main-thread interpolation): filling one (heights, q from
 * RH) costs more than interpolating it, and callers come back to the same points. About 2.3 KB
 * each; a unit's set is dropped with the unit, and cleared when it reaches this many.
 */
export const COLUMNS_PER_UNIT = 512

/** Block edge (grid points) of the decoded part of a file unit: 16° at 0.25°. */
export const BLOCK = 64

/** The BLOCK-aligned block of grid points holding (i, j); cut to the grid when decoded. */
export function blockAround (point: { i: number, j: number }): GridBox {
  return { i0: Math.floor(point.i / BLOCK) * BLOCK, j0: Math.floor(point.j / BLOCK) * BLOCK, ni: BLOCK, nj: BLOCK }
}

/** A refusal of the data path, in the vocabulary of the contract's problem codes. */
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

/** Cache key of a decoded unit: the source unit, and the block of it when only a block is decoded. */
function decodedKey (unitKey: string, box: GridBox | undefined): string {
  return box === undefined ? unitKey : `${unitKey}#${box.i0},${box.j0}`
}

export class ProfileService {
  readonly cache: UnitCache<DecodedUnit>
  /** Decoded entries per source unit key, so the source knows what is cached. */
  readonly #unitsCached = new Map<string, number>()
  readonly #hits: Counter<'result'>
  readonly #columns = new WeakMap<DecodedUnit, Map<number, Column>>()
  readonly #options: ProfileServiceOptions

  constructor (options: ProfileServiceOptions) {
    this.#options = options
    this.cache = new UnitCache<DecodedUnit>(options.cacheBytes, (_key, unit) => this.#count(unit.unitKey, -1))
    options.source.setIsCached((unitKey) => (this.#unitsCached.get(unitKey) ?? 0) > 0)
    const registers = [options.registry]
    this.#hits = new Counter({ name: 'aloft_decoded_cache_requests_total', help: 'Profile lookups of the decoded-unit cache, by result (hit, miss)', labelNames: ['result'], registers })
    const cache = this.cache
    const pool = options.pool
    /* eslint-disable no-new */
    new Gauge({ name: 'aloft_decoded_cache_bytes', help: 'Bytes of decoded units held in memory', registers, collect () { this.set(cache.stats.bytes) } })
    new Gauge({ name: 'aloft_worker_pool_utilization', help: 'Share of time the worker pool threads were busy since start (0..1)', registers, collect () { this.set(pool.utilization()) } })
    new Gauge({ name: 'aloft_worker_pool_queue_size', help: 'Tasks waiting for a worker thread', registers, collect () { this.set(pool.queueSize()) } })
  }

  #count (unitKey: string, delta: number): void {
    const n = (this.#unitsCached.get(unitKey) ?? 0) + delta
    if (n > 0) this.#unitsCached.set(unitKey, n)
    else this.#unitsCached.delete(unitKey)
  }

  async profile (request: AtmosphereRequest, accountId: string): Promise<AtmosphereResponse> {
    const time = new Date(request.time)
    const resolution = await this.#options.source.resolve({
      latitude: request.latitude,
      longitude: request.longitude,
      time,
      quality: request.quality ?? 'best_available',
      accountId
    })
    // A filter unit is a small tile: decoded whole. A file unit (bucket, mirror) may be a global
    // grid: only the BLOCK × BLOCK block of it around the point is decoded and kept.
    const box = resolution.unit.tile === undefined ? blockAround(resolution.point) : undefined
    const { value: unit, hit } = await this.cache.get(decodedKey(resolution.unitKey, box), async () => {
      const fetched = await this.#options.source.fetch(resolution, { accountId })
      const shared = new Uint8Array(new SharedArrayBuffer(fetched.bytes.length))
      shared.set(fetched.bytes)
      // The source has verified the unit (GRIB2, run, step, fields) and scanned it already.
      const decoded = await this.#options.pool.decode({ bytes: shared, box, fields: fetched.fields })
      if (!decoded.ok) throw new ProfileError('unusable_source_column', `The source data cannot be used: ${decoded.detail}.`)
      this.#count(fetched.unitKey, 1)
      return {
        // Upstream may have lost the resolved unit and served another (run, step): keyed as what it is.
        key: decodedKey(fetched.unitKey, box),
        unitKey: fetched.unitKey,
        bytes: decoded.values.byteLength,
        layout: decoded.layout,
        values: decoded.values,
        run: fetched.run,
        step: fetched.step,
        sha256: fetched.sha256,
        retrievedAt: fetched.retrievedAt
      }
    })
    this.#hits.inc({ result: hit ? 'hit' : 'miss' })

    const point = gridPointIndex(unit.layout.grid, resolution.point.latitude, resolution.point.longitude)
    if (point === null) throw new ProfileError('unusable_source_column', 'the source unit does not hold the requested grid point')
    const wanted = { altitudes_m: request.altitudes_m, altitude_reference: request.altitude_reference, ground_elevation_m_msl: request.ground_elevation_m_msl }
    const result: ProfileResult = this.#options.interpolateIn === 'main'
      ? computeProfile(this.#column(unit, point.i, point.j), wanted)
      : await this.#options.pool.interpolate({ layout: unit.layout, values: unit.values, i: point.i, j: point.j, request: wanted } satisfies InterpolateTask)
    if (!result.ok) {
      if (result.error === 'outside_vertical_range') {
        const heights = result.outside_altitudes_m.join(', ')
        throw new ProfileError('outside_vertical_range', `Height(s) ${heights} m ${request.altitude_reference.toUpperCase()} lie outside the column at this point.`, result.coverage)
      }
      throw new ProfileError('unusable_source_column', `The source column at this point cannot be used: ${result.detail}.`)
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

  #column (unit: DecodedUnit, i: number, j: number): Column {
    let columns = this.#columns.get(unit)
    if (columns === undefined) {
      columns = new Map()
      this.#columns.set(unit, columns)
    }
    const at = j * unit.layout.grid.ni + i
    let column = columns.get(at)
    if (column === undefined) {
      column = columnOf(unit.layout, unit.values, i, j)
      if (columns.size >= COLUMNS_PER_UNIT) columns.clear()
      columns.set(at, column)
    }
    return column
  }

  async close (): Promise<void> {
    await this.#options.pool.close()
  }
}

