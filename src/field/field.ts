// The one way to decoded data: a resolved unit (source) → decoded-unit cache → on a miss, fetch
// (source: allowance, single flight, throttle) → decode in a worker into a shared tile. Profiles,
// samples and trajectories all read tiles through here.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Column } from '../atmosphere/index.js'
import {
  SourceError, beforeDeadline, type CheckState, type FetchUnit, type FetchedUnit, type Resolution, type ResolveRequest,
  type Source
} from '../source/index.js'
import { MAX_POINTS } from '../grib/index.js'
import { ColumnMemo } from './column-memo.js'
import type { GridBox, TileLayout } from './layout.js'
import { PoolBusyError, type WorkerPool } from './pool.js'
import { UnitCache } from './unit-cache.js'
import { withinMs } from '../timers.js'

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

/** The source data of a unit cannot make columns; the contract's 502 unusable_source_column. */
export class UnusableUnitError extends Error {
  override readonly name = 'UnusableUnitError'
  readonly code = 'unusable_source_column'
  constructor (readonly detail: string) {
    super(detail)
  }
}

export interface FieldOptions {
  source: Source
  pool: WorkerPool
  registry: Registry
  /** Byte budget of decoded units kept in memory. */
  cacheBytes: number
}

/** Block edge (grid points) of the decoded part of a file unit: 16° at 0.25°. */
export const BLOCK = 64

/** The BLOCK-aligned block of grid points holding (i, j); cut to the grid when decoded. */
export function blockAround (point: { i: number, j: number }): GridBox {
  return { i0: Math.floor(point.i / BLOCK) * BLOCK, j0: Math.floor(point.j / BLOCK) * BLOCK, ni: BLOCK, nj: BLOCK }
}

/** The box a piece of `unit` holding (i, j) is decoded as: none (the whole tile) for a tiled unit. */
export function pieceBox (unit: FetchUnit, point: { i: number, j: number }): GridBox | undefined {
  return unit.tile === undefined ? blockAround(point) : undefined
}

/** Cache key of a decoded unit: the source unit, and the block of it when only a block is decoded. */
export function decodedKey (unitKey: string, box: GridBox | undefined): string {
  if (box === undefined) return unitKey
  // memoised: every cached profile asks, and a Map lookup with one stored string beats building
  // (and hashing) a new concatenation per request
  let byBox = decodedKeys.get(unitKey)
  if (byBox === undefined) {
    if (decodedKeys.size >= DECODED_KEY_MEMO_UNITS) decodedKeys.clear()
    byBox = new Map()
    decodedKeys.set(unitKey, byBox)
  }
  const at = box.j0 * MAX_POINTS + box.i0 // i0 < Ni ≤ MAX_POINTS: one number per corner, exact
  let key = byBox.get(at)
  if (key === undefined) {
    key = `${unitKey}#${box.i0},${box.j0}`
    byBox.set(at, key)
  }
  return key
}
const DECODED_KEY_MEMO_UNITS = 4096
const decodedKeys = new Map<string, Map<number, string>>()

export class Field {
  readonly cache: UnitCache<DecodedUnit>
  readonly pool: WorkerPool
  readonly #source: Source
  /** Decoded entries per source unit key: what isCached answers from. */
  readonly #unitsCached = new Map<string, number>()
  /** The decoded-cache lookup counter's two series, labelled once (prom-client hashes the labels of every inc). */
  readonly #hits: { inc: () => void }
  readonly #misses: { inc: () => void }
  readonly #columns = new ColumnMemo()

  constructor (options: FieldOptions) {
    this.#source = options.source
    this.pool = options.pool
    this.cache = new UnitCache<DecodedUnit>(options.cacheBytes, (_key, unit) => this.#count(unit.unitKey, -1))
    const registers = [options.registry]
    const lookups = new Counter({
      name: 'aloft_decoded_cache_requests_total',
      help: 'Lookups of the decoded-unit cache, by result (hit, miss)',
      labelNames: ['result'],
      registers
    })
    this.#hits = lookups.labels('hit')
    this.#misses = lookups.labels('miss')
    const { cache, pool } = this
    /* eslint-disable no-new -- a collected gauge registers itself */
    new Gauge({
      name: 'aloft_decoded_cache_bytes', help: 'Bytes of decoded units held in memory', registers,
      collect () { this.set(cache.stats.bytes) }
    })
    new Gauge({
      name: 'aloft_worker_pool_utilization', help: 'Share of time the worker pool threads were busy since start (0..1)',
      aggregator: 'average', // a host's processes: their pools' mean
      registers, collect () { this.set(pool.utilization()) }
    })
    new Gauge({
      name: 'aloft_worker_pool_queue_size', help: 'Tasks waiting for a worker thread', registers,
      collect () { this.set(pool.queueSize()) }
    })
    /* eslint-enable no-new */
  }

  #count (unitKey: string, delta: number): void {
    const n = (this.#unitsCached.get(unitKey) ?? 0) + delta
    if (n > 0) this.#unitsCached.set(unitKey, n)
    else this.#unitsCached.delete(unitKey)
  }

  /** Whether a source unit is cached, decoded here or raw on the source's disk: no fetch would be charged for it. */
  isCached (unitKey: string): boolean {
    return (this.#unitsCached.get(unitKey) ?? 0) > 0 || this.#source.onDisk(unitKey)
  }

  /**
   * isCached, or else whether the shared cache directory holds the unit: another process or
   * instance may have fetched it (a look at the directory, only for a unit not known here).
   */
  async findCached (unitKey: string): Promise<boolean> {
    return this.isCached(unitKey) || await this.#source.findOnDisk(unitKey)
  }

  /** The source's resolution of `request` (docs/DESIGN.md §3), preferring what is cached. */
  async resolve (request: ResolveRequest): Promise<Resolution> {
    return await this.#source.resolve(request, this.#isCached, this.#findCached)
  }

  readonly #isCached = (unitKey: string): boolean => this.isCached(unitKey)
  readonly #findCached = async (unitKey: string): Promise<boolean> => await this.findCached(unitKey)

  /**
   * The decoded unit answering `resolution`: cached, joined to a load under way, or fetched
   * (charged to `accountId`) and decoded. A filter unit is a small tile, decoded whole; a file
   * unit (bucket, mirror) may be a global grid, so only the BLOCK × BLOCK block around the
   * resolved point is decoded and kept. Waits until `deadline` (epoch ms; default the source's
   * fetch deadline from now) at most. Throws the source's errors and UnusableUnitError.
   */
  async load (
    resolution: Resolution, accountId: string, deadline = this.#source.deadline()
  ): Promise<{ unit: DecodedUnit, hit: boolean }> {
    const box = pieceBox(resolution.unit, resolution.point)
    return await this.#load(decodedKey(resolution.unitKey, box), box, deadline,
      async () => await this.#source.fetch(resolution, { accountId, deadline }))
  }

  /**
   * The decoded piece of exactly `unit` holding grid point (i, j): the whole tile of a filter
   * unit, the block around (i, j) of a file unit. For callers that planned their units (samples):
   * no other (run, step) is ever substituted. Same waits and errors as `load`.
   */
  async loadPiece (
    unit: FetchUnit, point: { i: number, j: number }, accountId: string, deadline = this.#source.deadline()
  ): Promise<{ unit: DecodedUnit, hit: boolean }> {
    const box = pieceBox(unit, point)
    return await this.#load(decodedKey(unit.key, box), box, deadline,
      async () => await this.#source.fetchExact(unit, { accountId, deadline }))
  }

  async #load (
    key: string, box: GridBox | undefined, deadline: number, fetch: () => Promise<FetchedUnit>
  ): Promise<{ unit: DecodedUnit, hit: boolean }> {
    // the common case, a unit in memory: no deadline timer, no race
    const held = this.cache.hit(key)
    if (held !== undefined) {
      this.#hits.inc()
      return { unit: held, hit: true }
    }
    const loading = this.cache.get(key, async () => {
      const fetched = await fetch()
      const shared = new Uint8Array(new SharedArrayBuffer(fetched.bytes.length))
      shared.set(fetched.bytes)
      // The source has verified the unit (GRIB2, run, step, fields) and scanned it already.
      const decoded = await this.pool.decode({ bytes: shared, box, fields: fetched.fields })
      if (!decoded.ok) throw new UnusableUnitError(`The source data cannot be used: ${decoded.detail}.`)
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
    // A request joining a load started by another waits no longer than its own deadline.
    const { value: unit, hit } = await beforeDeadline(loading, deadline, () => new SourceError('source_busy', {
      detail: 'the data is still being prepared for another request; try again shortly', retryAfterSeconds: 1
    }))
    if (hit) this.#hits.inc()
    else this.#misses.inc()
    return { unit, hit }
  }

  /** The filled column at grid point (i, j) of a decoded unit, filled once and kept with the unit. */
  column (unit: DecodedUnit, i: number, j: number, surfaceLayer = false): Column {
    return this.#columns.get(unit, i, j, surfaceLayer)
  }

  /**
   * Readiness: whether the worker pool runs tasks, by one no-op task's round trip within `waitMs`.
   * A full queue counts as not ready: this instance cannot take more decoding now.
   */
  async poolReady (waitMs: number): Promise<CheckState> {
    const answer = this.pool.run<boolean>('ping', null).then(
      (): CheckState => ({ ok: true, reason: null }),
      (err: unknown): CheckState => ({
        ok: false,
        reason: err instanceof PoolBusyError ? 'the worker pool\'s queue is full' : `the worker pool fails tasks: ${
          (err as Error).message}`
      }))
    return await withinMs(answer, waitMs, () => ({ ok: false, reason: `the worker pool did not answer within ${
      waitMs} ms` }))
  }

  async close (): Promise<void> {
    await this.pool.close()
  }
}
