// The Source: catalog + adapter + fetcher, and the resolve rules of docs/DESIGN.md §3.
import type { Registry } from 'prom-client'
import type { AccountStore } from '../accounts/index.js'
import { gridPointIndex, normalizeLongitude, type LatLonGrid } from '../grib/index.js'
import type { Adapter, FetchUnit, HeldRunStep } from './adapters/index.js'
import { Catalog, chooseTime } from './catalog.js'
import { DiskCache } from './disk-cache.js'
import { SourceError, UpstreamFailure } from './errors.js'
import { Fetcher, sourceMetrics, type FetchedUnit, type FetcherOptions } from './fetcher.js'
import { HOUR_MS, isoTime, validTime, type RunStep } from './gfs.js'
import type { Throttle } from './throttle.js'
import { columnLevels } from './unit.js'
import { ListingCheck, type CheckState } from './listing-check.js'
import { runsOf, type RunHours } from './runs.js'
import type { UnitLocks } from './unit-locks.js'

export type Quality = 'best_available' | 'immediate'

export interface SourceLogger {
  warn (msg: string): void
  info (msg: string): void
  error (msg: string): void
}

export interface ResolveRequest {
  latitude: number
  longitude: number
  time: Date
  quality: Quality
  accountId: string
}

/** The grid point a request rounds to, on the source's grid (global 0.25° for filter and noaa). */
export interface SourcePoint {
  latitude: number
  longitude: number // (-180, 180]
  i: number // column from the grid's western edge
  j: number // row from the grid's southern edge
}

export interface Resolution {
  request: ResolveRequest
  unit: FetchUnit
  unitKey: string
  run: Date
  step: number
  validTime: Date
  point: SourcePoint
  /** The unit is in the caller's decoded cache or our raw cache (no attempt needed). */
  cached: boolean
  /**
   * Why a run other than the newest for this valid time was chosen: `immediate` found it cached,
   * or the account's allowance is spent and it was cached. null: the newest run.
   */
  substitution: null | { reason: 'immediate_cached' | 'allowance_exhausted', newestRun: Date }
}

export interface SourceDescription {
  kind: 'noaa' | 'mirror' | 'filter'
  status: 'ok' | 'unavailable'
  statusText: string
  /** Isobaric levels (Pa, ascending) with a full column, when known. */
  levelsPa: number[] | null
  firstValidTime: string | null
  lastValidTime: string | null
  /** The runs of the newest RUN_LIST_DAYS days holding data, newest first. */
  runs: RunHours[]
  /** `runs` lists every run the source holds. */
  runsComplete: boolean
  coverage: { latitude: { min: number, max: number }, longitude: { min: number, max: number } } | null
  grid: { di: number, dj: number, ni: number, nj: number } | null
}

export interface SourceInternals {
  adapter: Adapter
  store: AccountStore
  cacheDir: string
  registry: Registry
  logger: SourceLogger
  throttle: Throttle
  maxTimeOffsetHours: number
  isCached?: (unitKey: string) => boolean
  fetcher?: FetcherOptions
  catalog?: { refreshMs?: number, missingMs?: number, maxStepHours?: number }
  /** Bound on the raw disk cache (bytes); default unbounded. */
  cacheMaxBytes?: number
  /** Unit locks shared with other instances (none: this process alone). */
  locks?: UnitLocks
  closeLocks?: () => Promise<void>
}

/** Instants whose time choice is kept (a bound on memory, not a cache size that matters). */
const TIME_CHOICES = 4096
/** How long a kept time choice is used before the catalog is asked again. */
const TIME_CHOICE_MS = 5000
/**
 * Days whose runs a description lists: a mirror (cheap to list, often sparse, like the demo's) a
 * month; NOAA and a grib filter the two newest days, which the description lists anyway (each day
 * costs upstream requests under the shared limiter).
 */
const RUN_LIST_DAYS: Record<Adapter['kind'], number> = { mirror: 31, filter: 2, noaa: 2 }

export type { CheckState }

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
  private isCachedByCaller: (unitKey: string) => boolean
  private levelsSeen: number[] | null = null
  private readonly timeChoices = new Map<number, { choice: ReturnType<typeof chooseTime>, generation: number,
    until: number }>()
  private readonly closeLocks: () => Promise<void>
  private readonly listing: ListingCheck

  constructor (o: SourceInternals) {
    this.adapter = o.adapter
    this.store = o.store
    this.logger = o.logger
    this.throttle = o.throttle
    this.maxOffsetMs = o.maxTimeOffsetHours * HOUR_MS
    this.maxStepHours = o.catalog?.maxStepHours ?? 384
    this.isCachedByCaller = o.isCached ?? (() => false)
    this.disk = new DiskCache(o.cacheDir, o.cacheMaxBytes)
    // indexed in the background from the start; resolve waits for it
    this.disk.ready().catch((err) => this.logger.error(`raw cache index failed: ${(err as Error).message}`))
    this.catalog = new Catalog(this.adapter, o.catalog)
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

  /** Tell the source which unit keys the caller's decoded cache holds. */
  setIsCached (isCached: (unitKey: string) => boolean): void {
    this.isCachedByCaller = isCached
  }

  /**
   * Changes whenever a resolution could come out differently: the catalog's listings or misses,
   * or the units held on disk. (The sum of two counters that only grow.)
   */
  generation (): number {
    return this.catalog.generation + this.disk.generation
  }

  /** Cached in the caller's decoded cache or in our raw disk cache. */
  isCached (unitKey: string): boolean {
    return this.isCachedByCaller(unitKey) || this.disk.has(unitKey)
  }

  /** Units downloading and waiting (for tests and health). */
  get queue (): { active: number, waiting: number } { return this.fetcher.depth }

  async describe (): Promise<SourceDescription> {
    const base = { kind: this.adapter.kind, levelsPa: this.adapter.levels() ?? this.levelsSeen }
    try {
      const grid = await this.grid()
      const entries = await this.catalog.edges()
      const times = entries.map(validTime)
      const recent = await this.catalog.newestDays(RUN_LIST_DAYS[this.adapter.kind])
      return {
        ...base,
        levelsPa: this.adapter.levels() ?? this.levelsSeen,
        status: 'ok',
        statusText: entries.length === 0 ? 'the source holds no GFS files' : `${this.adapter.kind} source available`,
        firstValidTime: times.length === 0 ? null : isoTime(Math.min(...times)),
        lastValidTime: times.length === 0 ? null : isoTime(Math.max(...times)),
        runs: runsOf(recent.entries),
        runsComplete: recent.complete,
        coverage: coverageOf(grid),
        grid: { di: grid.di, dj: grid.dj, ni: grid.ni, nj: grid.nj }
      }
    } catch (err) {
      this.logger.warn(`source description failed: ${(err as Error).message}`)
      return { ...base, status: 'unavailable', statusText: 'the source cannot be listed right now',
        firstValidTime: null, lastValidTime: null, runs: [], runsComplete: false, coverage: null, grid: null }
    }
  }

  /**
   * Choose (run, step) and grid point for a request (docs/DESIGN.md §3), before any fetch:
   * outside_source_coverage (404) when the point rounds off the grid or no valid time lies
   * within the offset; daily_allowance_exhausted (429) when a fetch is needed, the allowance is
   * spent and no cached run has the chosen valid time.
   */
  async resolve (request: ResolveRequest): Promise<Resolution> {
    const { latitude, longitude, time } = request
    if (!this.disk.isReady) await this.disk.ready()
    if (!Number.isFinite(latitude) || latitude < -90 || latitude > 90 || !Number.isFinite(longitude) ||
      Number.isNaN(time.getTime())) {
      throw new RangeError('resolve needs a latitude in [-90, 90], a finite longitude and a valid time')
    }
    const grid = this.knownGrid ?? await this.grid()
    const gp = gridPointIndex(grid, latitude, longitude)
    if (gp === null) {
      throw new SourceError('outside_source_coverage', {
        detail: `(${latitude}, ${longitude}) rounds outside the source's grid (latitude ` +
          `${grid.south}..${grid.north}, longitude ${normalizeLongitude(grid.west)}..${normalizeLongitude(grid.east)})`
      })
    }
    const choice = this.keptTimeChoice(time.getTime()) ?? await this.timeChoice(time.getTime())
    // the catalog's runs for the chosen valid time, newest first, then any older run still in a
    // cache (the catalog may not have listed its day): a cached unit in either upstream counts
    const listed = new Set(choice.candidates.map((c) => c.run))
    const units = choice.candidates.map((c) => this.adapter.unitFor(c, gp))
    const cached = units.map((u) => this.isCached(u.key))
    for (let k = 0; k < units.length; k++) {
      const alt = units[k].alternate
      if (!cached[k] && alt !== undefined && this.isCached(alt.key)) { units[k] = alt; cached[k] = true }
    }
    // When the newest listed run is cached, only an unlisted run newer than it could change the
    // answer: the scan stops there (the hot path of cached profiles), else it looks at them all.
    let newestCached = -Infinity
    for (let k = 0; k < units.length; k++) if (cached[k] && units[k].run > newestCached) newestCached = units[k].run
    const newestListed = Math.max(...choice.candidates.map((c) => c.run))
    const stopAt = newestCached === newestListed ? newestListed : -Infinity
    const older: RunStep[] = []
    for (let step = 6; step <= this.maxStepHours; step += 6) {
      const run = choice.validTime - step * HOUR_MS
      if (run <= stopAt) break
      if (!listed.has(run)) older.push({ run, step })
    }
    for (const rs of older) {
      const u = this.adapter.unitFor(rs, gp)
      const hit = this.isCached(u.key) ? u : u.alternate !== undefined &&
        this.isCached(u.alternate.key) ? u.alternate : null
      if (hit !== null) { units.push(hit); cached.push(true) }
    }
    // newest run first across listed and cached-only runs
    const order = units.map((_, k) => k).sort((a, b) => units[b].run - units[a].run)
    units.splice(0, units.length, ...order.map((k) => units[k]))
    cached.splice(0, cached.length, ...order.map((k) => cached[k]))
    const pick = (k: number, substitution: Resolution['substitution']): Resolution => ({
      request,
      unit: units[k],
      unitKey: units[k].key,
      run: new Date(units[k].run),
      step: units[k].step,
      validTime: new Date(choice.validTime),
      point: { latitude: gp.latitude, longitude: gp.longitude, i: gp.i, j: gp.j },
      cached: cached[k],
      substitution
    })
    // units[0] is the newest run; cached-only runs are cached, so when it is not cached it is listed
    const firstCached = cached.indexOf(true)
    if (cached[0]) return pick(0, null)
    const newest = units[0]
    if (request.quality === 'immediate' && firstCached > 0) {
      return pick(firstCached, { reason: 'immediate_cached', newestRun: new Date(newest.run) })
    }
    const allowance = await this.store.allowance(request.accountId)
    if (allowance.remaining > 0) return pick(0, null)
    if (firstCached > 0) return pick(firstCached, { reason: 'allowance_exhausted', newestRun: new Date(newest.run) })
    throw new SourceError('daily_allowance_exhausted', {
      detail: `the account's ${allowance.limit} upstream attempts for today are used and no cached run has ` +
        `${isoTime(choice.validTime)}`,
      retryAfterSeconds: allowance.reset_after_seconds,
      accountId: request.accountId
    })
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
        this.logger.warn(`upstream lacks run ${isoTime(current.unit.run)} step ${current.unit.step} h ` +
          `(${err.message}); resolving again`)
        if (round >= 2) {
          throw new SourceError('outside_source_coverage',
            { detail: `the source no longer holds data near ${isoTime(resolution.request.time.getTime())}` })
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
      this.logger.warn(`upstream lacks run ${isoTime(unit.run)} step ${unit.step} h (${err.message})`)
      throw new SourceError('outside_source_coverage',
        { detail: `the source no longer holds run ${isoTime(unit.run)} step ${unit.step} h` })
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
        const entries = await this.discover(async () => await this.catalog.around(t, this.maxOffsetMs))
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
    return await this.grid()
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
      this.logger.warn(`${unit.origin} failed for run ${isoTime(unit.run)} step ${unit.step} h ` +
        `(${(err as Error).message}); trying ${unit.alternate.origin}`)
      return await this.fetcher.fetch(unit.alternate, accountId, deadline)
    }
  }

  /** The grid, once known: an adapter's grid never changes once it has been read. */
  private knownGrid: LatLonGrid | undefined

  private async grid (): Promise<LatLonGrid> {
    this.knownGrid = await this.discover(async () => await this.adapter.grid())
    return this.knownGrid
  }

  /** The kept choice for an instant while it holds (see timeChoice), at once; else undefined. */
  private keptTimeChoice (t: number): ReturnType<typeof chooseTime> | undefined {
    const kept = this.timeChoices.get(t)
    return kept !== undefined && kept.generation === this.catalog.generation && kept.until > Date.now()
      ? kept.choice
      : undefined
  }

  /**
   * The time rule's choice for an instant, kept per instant while the catalog's generation holds
   * and for at most TIME_CHOICE_MS, so listings still refresh on their schedule: the catalog
   * walk is the costliest part of resolving a cached profile. Refusals are not kept. Asked only
   * when keptTimeChoice has none.
   */
  private async timeChoice (t: number): Promise<ReturnType<typeof chooseTime>> {
    const now = Date.now()
    const entries = await this.discover(async () => await this.catalog.around(t, this.maxOffsetMs))
    const generation = this.catalog.generation // after the listing: a listing that changed it is included
    const choice = chooseTime(entries, t, this.maxOffsetMs)
    if (this.timeChoices.size >= TIME_CHOICES) this.timeChoices.clear()
    this.timeChoices.set(t, { choice, generation, until: now + TIME_CHOICE_MS })
    return choice
  }

  /** Discovery failures become source_busy (503): the catalog cannot be read right now. */
  private async discover<T> (fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      if (!(err instanceof UpstreamFailure)) throw err
      if (err.kind === 'missing') {
        throw new SourceError('outside_source_coverage', { detail: 'the source holds no GFS files', nearestTimes: [] })
      }
      this.logger.warn(`GFS catalog discovery failed: ${err.message}`)
      throw new SourceError('source_busy',
        { detail: 'the source cannot be listed right now', retryAfterSeconds: err.retryAfterSeconds ?? 30 })
    }
  }
}

function coverageOf (grid: LatLonGrid): NonNullable<SourceDescription['coverage']> {
  if (grid.global) return { latitude: { min: grid.south, max: grid.north }, longitude: { min: -180, max: 180 } }
  return { latitude: { min: grid.south, max: grid.north },
    longitude: { min: normalizeLongitude(grid.west), max: normalizeLongitude(grid.east) } }
}

export type { RunStep }
