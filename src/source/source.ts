// The Source: catalog + adapter + fetcher behind one class — resolving a request (resolve.ts),
// describing what is held (describe.ts), fetching units once, and the readiness checks.
import type { Registry } from 'prom-client'
import type { AccountStore } from '../accounts/index.js'
import type { LatLonGrid } from '../grib/index.js'
import type { Adapter, FetchUnit, HeldRunStep, Throttle } from './adapters/index.js'
import { Catalog } from './catalog.js'
import { SourceError, UpstreamFailure } from './errors.js'
import {
  DiskCache, Fetcher, sourceMetrics, type FetchedUnit, type FetcherOptions, type UnitLocks
} from './fetch/index.js'
import { HOUR_MS, type RunStep } from './gfs.js'
import { columnLevels } from './unit.js'
import { ListingCheck, type CheckState } from './listing-check.js'
import { discover } from './discover.js'
import { describeSource } from './describe.js'
import { Resolver } from './resolve.js'
import type { Resolution, ResolveRequest, SourceDescription, SourceLogger } from './types.js'
import { rfc3339 } from '../contract/index.js'

export type { CheckState }

export interface SourceInternals {
  adapter: Adapter
  store: AccountStore
  cacheDir: string
  registry: Registry
  logger: SourceLogger
  throttle: Throttle
  maxTimeOffsetHours: number
  fetcher?: FetcherOptions
  catalog?: { refreshMs?: number, missingMs?: number, maxStepHours?: number }
  /** Bound on the raw disk cache (bytes); default unbounded. */
  cacheMaxBytes?: number
  /** Unit locks shared with other instances (none: this process alone). */
  locks?: UnitLocks
  closeLocks?: () => Promise<void>
}


export class Source {
  readonly catalog: Catalog
  private readonly fetcher: Fetcher
  private readonly disk: DiskCache
  private readonly adapter: Adapter
  private readonly store: AccountStore
  private readonly logger: SourceLogger
  private readonly throttle: Throttle
  private readonly maxOffsetMs: number
  private readonly maxStepHours: number
  private levelsSeen: number[] | null = null
  private readonly resolver: Resolver
  private readonly closeLocks: () => Promise<void>
  private readonly listing: ListingCheck

  constructor (o: SourceInternals) {
    this.adapter = o.adapter
    this.store = o.store
    this.logger = o.logger
    this.throttle = o.throttle
    this.maxOffsetMs = o.maxTimeOffsetHours * HOUR_MS
    this.maxStepHours = o.catalog?.maxStepHours ?? 384
    this.disk = new DiskCache(o.cacheDir, o.cacheMaxBytes)
    // indexed in the background from the start; resolve waits for it
    this.disk.ready().catch((err) => this.logger.error(`raw cache index failed: ${(err as Error).message}`))
    this.catalog = new Catalog(this.adapter, o.catalog)
    this.resolver = new Resolver({ adapter: o.adapter, catalog: this.catalog, disk: this.disk, store: o.store,
      logger: o.logger, maxOffsetMs: this.maxOffsetMs,
      maxStepHours: this.maxStepHours })
    this.fetcher = new Fetcher(this.adapter, o.store, this.disk, sourceMetrics(o.registry), o.fetcher, o.locks)
    this.closeLocks = o.closeLocks ?? (async () => {})
    this.listing = new ListingCheck(async () => await this.adapter.listDays(), (state, err) => {
      if (state.ok) this.logger.info('readiness: the source can be listed again')
      else this.logger.warn(`readiness: ${state.reason}${err === null ? '' : ` (${(err as Error).message})`}`)
    })
  }

  /** Readiness: whether the source can be listed (afresh at most every 30 s), waiting at most `waitMs`. */
  async listable (waitMs: number): Promise<CheckState> {
    return await this.listing.state(waitMs)
  }

  /** Readiness: whether fetched units can be written to the raw cache. */
  async cacheWritable (): Promise<CheckState> {
    const reason = await this.disk.unwritable()
    return { ok: reason === null, reason }
  }

  get kind (): Adapter['kind'] { return this.adapter.kind }

  /**
   * Changes whenever a resolution could come out differently: the catalog's listings or misses,
   * or the units held on disk. (The sum of two counters that only grow.)
   */
  generation (): number {
    return this.catalog.generation + this.disk.generation
  }

  /** Whether the raw disk cache holds a unit (what the field has decoded, the field knows). */
  onDisk (unitKey: string): boolean {
    return this.disk.has(unitKey)
  }

  /**
   * Whether the raw disk cache holds a unit whoever wrote it: `onDisk`, or else a look at the shared
   * directory (another process or instance may have fetched it since this one last looked).
   */
  async findOnDisk (unitKey: string): Promise<boolean> {
    return await this.disk.look(unitKey)
  }

  /** Units downloading and waiting (for tests and health). */
  get queue (): { active: number, waiting: number } { return this.fetcher.depth }

  async describe (): Promise<SourceDescription> {
    return await describeSource({ adapter: this.adapter, catalog: this.catalog, logger: this.logger,
      grid: async () => await this.resolver.grid(), levelsSeen: this.levelsSeen })
  }

  /**
   * Choose (run, step) and grid point for a request (docs/DESIGN.md §3), before any fetch:
   * resolve.ts. A unit counts as cached when `isCached` says so (the field: decoded or on disk), or,
   * when that is not known here and it matters, when `findCached` finds it in the shared directory.
   */
  async resolve (
    request: ResolveRequest,
    isCached = (unitKey: string): boolean => this.onDisk(unitKey),
    findCached = async (unitKey: string): Promise<boolean> => await this.findOnDisk(unitKey)
  ): Promise<Resolution> {
    return await this.resolver.resolve(request, isCached, findCached)
  }

  /**
   * The resolved unit's bytes. When upstream turns out not to have it, the (run, step) is
   * remembered as missing, the catalog refreshed and the request resolved again, so the result
   * may be another unit (see its `unitKey`, `run`, `step`). With noaa, a unit one upstream
   * fails to give is tried from the other. Everything it waits for ends by `deadline` (epoch ms;
   * default: this source's fetch deadline from now), else source_busy.
   */
  async fetch (resolution: Resolution, options: { accountId: string, deadline?: number }): Promise<FetchedUnit> {
    const deadline = options.deadline ?? this.deadline()
    let current = resolution
    for (let round = 0; ; round++) {
      try {
        return await this.fetchUnit(current.unit, options.accountId, deadline)
      } catch (err) {
        if (!(err instanceof UpstreamFailure && err.kind === 'missing')) throw err
        this.catalog.markMissing(current.unit)
        this.logger.warn(`upstream lacks run ${rfc3339(current.unit.run)} step ${current.unit.step} h ` +
          `(${err.message}); resolving again`)
        if (round >= 2) {
          throw new SourceError('outside_source_coverage',
            { detail: `the source no longer holds data near ${rfc3339(resolution.request.time.getTime())}` })
        }
        current = await this.resolve({ ...resolution.request, accountId: options.accountId })
      }
    }
  }

  /**
   * Exactly this unit's bytes, for callers that planned their units themselves (samples): a unit
   * upstream turns out not to have is remembered as missing and is outside_source_coverage.
   */
  async fetchExact (unit: FetchUnit, options: { accountId: string, deadline?: number }): Promise<FetchedUnit> {
    try {
      return await this.fetchUnit(unit, options.accountId, options.deadline ?? this.deadline())
    } catch (err) {
      if (!(err instanceof UpstreamFailure && err.kind === 'missing')) throw err
      this.catalog.markMissing(unit)
      this.logger.warn(`upstream lacks run ${rfc3339(unit.run)} step ${unit.step} h (${err.message})`)
      throw new SourceError('outside_source_coverage',
        { detail: `the source no longer holds run ${rfc3339(unit.run)} step ${unit.step} h` })
    }
  }

  /** The unit holding grid point (i, j) of (run, step). */
  unitAt (rs: HeldRunStep, i: number, j: number): FetchUnit {
    return this.adapter.unitFor(rs, { index: -1, i, j, latitude: NaN, longitude: NaN })
  }

  /**
   * The catalog's (run, step) entries that can answer any instant within the given whole hours
   * (each hour h covers [h, h + 1 h)): what bulk samples choose their units from.
   */
  async entriesNear (hours: Iterable<number>): Promise<HeldRunStep[]> {
    await this.disk.ready()
    const seen = new Map<string, HeldRunStep>()
    for (const h of hours) {
      for (const t of [h, h + HOUR_MS]) {
        const entries = await discover(this.logger, async () => await this.catalog.around(t, this.maxOffsetMs))
        for (const e of entries) seen.set(`${e.run}/${e.step}`, e)
      }
    }
    return [...seen.values()]
  }

  /** The longest distance (ms) between a requested time and the valid time answering it. */
  get maxTimeOffsetMs (): number { return this.maxOffsetMs }

  /** The grid points are counted on (discovery failures are source_busy, as in resolve). */
  async sourceGrid (): Promise<LatLonGrid> {
    await this.disk.ready()
    return await this.resolver.grid()
  }

  /** The deadline of a request for data that starts now (epoch ms). */
  deadline (): number {
    return Date.now() + this.fetcher.deadlineMs
  }

  async close (): Promise<void> {
    await this.throttle.close()
    await this.closeLocks()
  }

  private async fetchUnit (unit: FetchUnit, accountId: string, deadline: number): Promise<FetchedUnit> {
    const got = await this.fetchOrAlternate(unit, accountId, deadline)
    // the filter and a bucket without .idx only tell their levels once a unit has arrived
    this.levelsSeen ??= columnLevels(got.fields)
    return got
  }

  private async fetchOrAlternate (unit: FetchUnit, accountId: string, deadline: number): Promise<FetchedUnit> {
    try {
      return await this.fetcher.fetch(unit, accountId, deadline)
    } catch (err) {
      const retryable = (err instanceof UpstreamFailure && err.kind === 'missing') ||
        (err instanceof SourceError && err.code === 'source_busy')
      if (unit.alternate === undefined || !retryable) throw err
      this.logger.warn(`${unit.origin} failed for run ${rfc3339(unit.run)} step ${unit.step} h ` +
        `(${(err as Error).message}); trying ${unit.alternate.origin}`)
      return await this.fetcher.fetch(unit.alternate, accountId, deadline)
    }
  }

}

export type { RunStep }
