// The resolve rules of docs/DESIGN.md §3: a request's (run, step), grid point and unit, chosen
// from the catalog and what is cached before anything is fetched, with the time rule's choice
// kept per instant (the catalog walk is the costliest part of resolving a cached profile).
import type { AccountStore } from '../accounts/index.js'
import { gridPointIndex, normalizeLongitude, type GridPoint, type LatLonGrid } from '../grib/index.js'
import type { Adapter, FetchUnit } from './adapters/index.js'
import { type Catalog, type RunsAtTime, chooseTime } from './catalog.js'
import type { DiskCache } from './fetch/index.js'
import { discover } from './discover.js'
import { SourceError, whoseAllowance } from './errors.js'
import { HOUR_MS } from './gfs.js'
import type { Resolution, ResolveRequest, SourceLogger } from './types.js'
import { rfc3339 } from '../contract/index.js'

/** Instants whose time choice is kept (a bound on memory, not a cache size that matters). */
const TIME_CHOICES = 4096
/** How long a kept time choice is used before the catalog is asked again. */
const TIME_CHOICE_MS = 5000

export interface ResolverParts {
  adapter: Adapter
  catalog: Catalog
  disk: DiskCache
  store: AccountStore
  logger: SourceLogger
  maxOffsetMs: number
  maxStepHours: number
}

export class Resolver {
  readonly #timeChoices = new Map<number, { choice: RunsAtTime, generation: number,
    until: number }>()
  /** The grid, once known: an adapter's grid never changes once it has been read. */
  #knownGrid: LatLonGrid | undefined

  constructor (private readonly o: ResolverParts) {}

  /** The source's grid (discovery failures are source_busy). */
  async grid (): Promise<LatLonGrid> {
    this.#knownGrid = await discover(this.o.logger, async () => await this.o.adapter.grid())
    return this.#knownGrid
  }

  /**
   * Choose (run, step) and grid point for a request (docs/DESIGN.md §3), before any fetch:
   * outside_source_coverage (404) when the point rounds off the grid or no valid time lies
   * within the offset; daily_allowance_exhausted (429) when a fetch is needed, the allowance is
   * spent and no cached run has the chosen valid time. `isCached` says whether a unit is cached
   * (decoded by the caller, or raw on disk as this process knows it): no attempt would be charged
   * for it. `findCached` also looks at the shared directory; it is asked only when the newest run
   * is not known cached, so the hot path never touches the disk.
   */
  async resolve (
    request: ResolveRequest, isCached: (unitKey: string) => boolean, findCached?: FindCached
  ): Promise<Resolution> {
    const { latitude, longitude, time } = request
    if (!this.o.disk.isReady) await this.o.disk.ready()
    if (!Number.isFinite(latitude) || latitude < -90 || latitude > 90 || !Number.isFinite(longitude) ||
      Number.isNaN(time.getTime())) {
      throw new RangeError('resolve needs a latitude in [-90, 90], a finite longitude and a valid time')
    }
    const grid = this.#knownGrid ?? await this.grid()
    const gp = gridPointIndex(grid, latitude, longitude)
    if (gp === null) {
      throw new SourceError('outside_source_coverage', {
        detail: `(${latitude}, ${longitude}) rounds outside the source's grid (latitude ` +
          `${grid.south}..${grid.north}, longitude ${normalizeLongitude(grid.west)}..${normalizeLongitude(grid.east)})`
      })
    }
    const choice = this.#keptTimeChoice(time.getTime()) ?? await this.#timeChoice(time.getTime())
    let sel = this.#select(choice, gp, isCached)
    const pick = (k: number, substitution: Resolution['substitution']): Resolution => ({
      request,
      unit: sel.units[k],
      unitKey: sel.units[k].key,
      run: new Date(sel.units[k].run),
      step: sel.units[k].step,
      validTime: new Date(choice.validTime),
      point: { latitude: gp.latitude, longitude: gp.longitude, i: gp.i, j: gp.j },
      cached: sel.cached[k],
      substitution
    })
    // the hot path: the newest run is cached here, decided without a look at the disk
    if (sel.cached[0]) return pick(0, null)
    // Another process or instance sharing the cache directory may have fetched what this one has
    // not seen (docs/DESIGN.md §11): a look at the directory, first for the newest run alone.
    if (findCached !== undefined && await anyFound(findCached, [sel.units[0]])) {
      sel = this.#select(choice, gp, isCached)
      if (sel.cached[0]) return pick(0, null)
    }
    const immediate = request.quality === 'immediate'
    let allowance = immediate ? undefined : await this.o.store.allowance(request.accountId)
    if (allowance !== undefined && allowance.remaining > 0) return pick(0, null)
    // an older cached run is the answer now: every run newer than the newest known cached one is looked for
    if (findCached !== undefined) {
      const known = sel.cached.indexOf(true)
      const newer = this.#considered(choice, gp).filter((u) => known < 0 || u.run > sel.units[known].run)
      if (await anyFound(findCached, newer)) sel = this.#select(choice, gp, isCached)
      if (sel.cached[0]) return pick(0, null)
    }
    // units[0] is the newest run; cached-only runs are cached, so when it is not cached it is listed
    const firstCached = sel.cached.indexOf(true)
    const newest = sel.units[0]
    if (immediate && firstCached > 0) {
      return pick(firstCached, { reason: 'immediate_cached', newestRun: new Date(newest.run) })
    }
    allowance ??= await this.o.store.allowance(request.accountId)
    if (allowance.remaining > 0) return pick(0, null)
    if (firstCached > 0) return pick(firstCached, { reason: 'allowance_exhausted', newestRun: new Date(newest.run) })
    throw new SourceError('daily_allowance_exhausted', {
      detail: `${whoseAllowance(allowance)} for today are used and no cached run has ${rfc3339(choice.validTime)}`,
      retryAfterSeconds: allowance.reset_after_seconds,
      accountId: request.accountId
    })
  }

  /**
   * The units that can answer the chosen valid time, newest run first, and which are cached: the
   * catalog's runs (a cached alternate in the other upstream counts), then any older run still in
   * a cache though the catalog may not list its day.
   */
  #select (
    choice: RunsAtTime, gp: GridPoint, isCached: (unitKey: string) => boolean
  ): { units: FetchUnit[], cached: boolean[] } {
    const listed = new Set(choice.candidates.map((c) => c.run))
    const units = choice.candidates.map((c) => this.o.adapter.unitFor(c, gp))
    const cached = units.map((u) => isCached(u.key))
    for (let k = 0; k < units.length; k++) {
      const alt = units[k].alternate
      if (!cached[k] && alt !== undefined && isCached(alt.key)) { units[k] = alt; cached[k] = true }
    }
    // When the newest listed run is cached, only an unlisted run newer than it could change the
    // answer: the scan stops there (the hot path of cached profiles), else it looks at them all.
    let newestCached = -Infinity
    for (let k = 0; k < units.length; k++) if (cached[k] && units[k].run > newestCached) newestCached = units[k].run
    const newestListed = Math.max(...choice.candidates.map((c) => c.run))
    const stopAt = newestCached === newestListed ? newestListed : -Infinity
    for (let step = 6; step <= this.o.maxStepHours; step += 6) {
      const run = choice.validTime - step * HOUR_MS
      if (run <= stopAt) break
      if (listed.has(run)) continue
      const u = this.o.adapter.unitFor({ run, step }, gp)
      const hit = isCached(u.key) ? u : u.alternate !== undefined && isCached(u.alternate.key) ? u.alternate : null
      if (hit !== null) { units.push(hit); cached.push(true) }
    }
    // newest run first across listed and cached-only runs
    const order = units.map((_, k) => k).sort((a, b) => units[b].run - units[a].run)
    return { units: order.map((k) => units[k]), cached: order.map((k) => cached[k]) }
  }

  /** Every unit #select considers, cached or not: the catalog's runs and every older run a cache may hold. */
  #considered (choice: RunsAtTime, gp: GridPoint): FetchUnit[] {
    const listed = new Set(choice.candidates.map((c) => c.run))
    const units = choice.candidates.map((c) => this.o.adapter.unitFor(c, gp))
    for (let step = 6; step <= this.o.maxStepHours; step += 6) {
      const run = choice.validTime - step * HOUR_MS
      if (!listed.has(run)) units.push(this.o.adapter.unitFor({ run, step }, gp))
    }
    return units
  }

  /** The kept choice for an instant while it holds (see timeChoice), at once; else undefined. */
  #keptTimeChoice (t: number): RunsAtTime | undefined {
    const kept = this.#timeChoices.get(t)
    return kept !== undefined && kept.generation === this.o.catalog.generation && kept.until > Date.now()
      ? kept.choice
      : undefined
  }

  /**
   * The time rule's choice for an instant, kept per instant while the catalog's generation holds
   * and for at most TIME_CHOICE_MS, so listings still refresh on their schedule: the catalog
   * walk is the costliest part of resolving a cached profile. Refusals are not kept. Asked only
   * when keptTimeChoice has none.
   */
  async #timeChoice (t: number): Promise<RunsAtTime> {
    const now = Date.now()
    const entries = await discover(this.o.logger, async () => await this.o.catalog.around(t, this.o.maxOffsetMs))
    const generation = this.o.catalog.generation // after the listing: a listing that changed it is included
    const choice = chooseTime(entries, t, this.o.maxOffsetMs)
    if (this.#timeChoices.size >= TIME_CHOICES) this.#timeChoices.clear()
    this.#timeChoices.set(t, { choice, generation, until: now + TIME_CHOICE_MS })
    return choice
  }
}

/** Whether a unit is in the shared cache, looking at the directory when this process knows of none. */
export type FindCached = (unitKey: string) => Promise<boolean>

function withAlternates (units: readonly FetchUnit[]): FetchUnit[] {
  return units.flatMap((u) => u.alternate === undefined ? [u] : [u, u.alternate])
}

/** Looks for every unit (and its alternate) at once; true when any was found. */
async function anyFound (findCached: FindCached, units: readonly FetchUnit[]): Promise<boolean> {
  const found = await Promise.all(withAlternates(units).map(async (u) => await findCached(u.key)))
  return found.includes(true)
}
