// Which (run, step) pairs a source holds, and the nearest-model-time rule of docs/DESIGN.md §3.
// Discovery (listings) is free for accounts; it is cached per day and refreshed after `refreshMs`.
import { SourceError } from './errors.js'
import { HOUR_MS, dayText, validTime, type RunStep } from './gfs.js'
import { nearestValidIndex, upperBound } from './nearest-time.js'
import { rfc3339 } from '../contract/index.js'

/** How a catalog learns what a source holds; implemented by each adapter. */
export interface Discovery {
  /** Days ('YYYYMMDD') that have at least one run directory. */
  listDays (): Promise<string[]>
  /** Every (run, step) file of one day's runs. */
  listDay (day: string): Promise<RunStep[]>
}

/** The valid time the nearest-time rule chose, and the runs that have it, newest run (shortest step) first. */
export interface RunsAtTime {
  validTime: number
  candidates: RunStep[]
}

/**
 * docs/DESIGN.md §3: the valid time nearest `time`, ties to the later one, within `maxOffsetMs`
 * inclusive; else outside_source_coverage naming the nearest valid times on each side.
 */
export function chooseTime (entries: readonly RunStep[], time: number, maxOffsetMs: number): RunsAtTime {
  const valid = [...new Set(entries.map(validTime))].sort((a, b) => a - b)
  const best = nearestValidIndex(valid, time, maxOffsetMs)
  if (best < 0) {
    const k = upperBound(valid, time)
    const nearest = [valid[k - 1], valid[k]].filter((v) => v !== undefined).map((v) => rfc3339(v))
    const hours = maxOffsetMs / HOUR_MS
    throw new SourceError('outside_source_coverage', {
      detail: nearest.length === 0
        ? `the source holds no model time within ${hours} h of ${rfc3339(time)}`
        : `no model time within ${hours} h of ${rfc3339(time)}; nearest available: ${nearest.join(', ')}`,
      nearestTimes: nearest
    })
  }
  const candidates = entries.filter((e) => validTime(e) === valid[best]).sort((a, b) => b.run - a.run)
  return { validTime: valid[best], candidates }
}

export interface CatalogOptions {
  /** Listings older than this are fetched again when needed; default 10 min. */
  refreshMs?: number
  /** How long a (run, step) found missing upstream is left out; default 60 s. */
  missingMs?: number
  /** Longest forecast step the source may hold (runs this far back can reach a time); default 384 h. */
  maxStepHours?: number
  now?: () => number
}

interface Loaded<T> { value: T, at: number }

export class Catalog {
  #generation = 0
  private days: Loaded<string[]> | null = null
  private readonly dayEntries = new Map<string, Loaded<RunStep[]>>()
  private readonly loading = new Map<string, Promise<unknown>>()
  private readonly missing = new Map<string, number>()
  private readonly refreshMs: number
  private readonly missingMs: number
  private readonly maxStepMs: number
  private readonly now: () => number

  constructor (private readonly discovery: Discovery, options: CatalogOptions = {}) {
    this.refreshMs = options.refreshMs ?? 600_000
    this.missingMs = options.missingMs ?? 60_000
    this.maxStepMs = (options.maxStepHours ?? 384) * HOUR_MS
    this.now = options.now ?? Date.now
  }

  /**
   * The (run, step) pairs that can reach `time` within `maxOffsetMs`, minus recent misses.
   * Days are listed newest first and listing stops once the ideal valid time (the whole hour the
   * rule would pick if every hour were held) is found: no older run can beat the newest run
   * holding it. So a request costs a day or two of listings, not the 17 a 384 h window spans;
   * a mirror with gaps is listed further. When nothing is within the offset, the nearest listed
   * day on each side is added so the 404 can name the nearest available times.
   */
  async around (time: number, maxOffsetMs: number): Promise<RunStep[]> {
    const days = await this.listDays()
    const first = dayText(time - maxOffsetMs - this.maxStepMs)
    const last = dayText(time + maxOffsetMs)
    const floor = Math.floor(time / HOUR_MS) * HOUR_MS
    const ideal = time - floor < HOUR_MS / 2 ? floor : floor + HOUR_MS // a half-hour tie goes later
    const out: RunStep[] = []
    for (const d of days.filter((x) => x >= first && x <= last).reverse()) {
      out.push(...(await this.day(d)).filter((e) => !this.isMissing(e)))
      if (out.some((e) => validTime(e) === ideal)) return out
    }
    if (!out.some((e) => Math.abs(validTime(e) - time) <= maxOffsetMs)) {
      const before = days.filter((d) => d < first).pop()
      const after = days.find((d) => d > last)
      for (const d of [before,
        after]) if (d !== undefined) out.push(...(await this.day(d)).filter((e) => !this.isMissing(e)))
    }
    return out
  }

  /** Every pair of the first day and the last two days: enough for the first/last valid time. */
  async edges (): Promise<RunStep[]> {
    const days = await this.listDays()
    const picked = [...new Set([days[0], ...days.slice(-2)])].filter((d) => d !== undefined)
    const lists = await Promise.all(picked.map(async (d) => await this.day(d)))
    return lists.flat()
  }

  /**
   * Changes whenever what the catalog answers could change: a listing that differs from the last,
   * a pair marked missing or back, everything dropped. Answers kept for repeats check it.
   */
  get generation (): number {
    return this.#generation
  }

  /**
   * Every pair of the newest `count` days holding data, minus recent misses; `complete` when
   * those are all the days the source holds.
   */
  async newestDays (count: number): Promise<{ entries: RunStep[], complete: boolean }> {
    const days = await this.listDays()
    const lists = await Promise.all(days.slice(-count).map(async (d) => await this.day(d)))
    return { entries: lists.flat().filter((e) => !this.isMissing(e)), complete: days.length <= count }
  }

  /** Remember briefly that upstream lacks this pair, and forget its listings so they refresh. */
  markMissing (rs: RunStep): void {
    this.#generation++
    this.missing.set(`${rs.run}/${rs.step}`, this.now() + this.missingMs)
    this.days = null
    this.dayEntries.delete(dayText(rs.run))
  }

  isMissing (rs: RunStep): boolean {
    const key = `${rs.run}/${rs.step}`
    const until = this.missing.get(key)
    if (until === undefined) return false
    if (until > this.now()) return true
    this.missing.delete(key)
    this.#generation++
    return false
  }

  /** Drop every listing (the next use lists again). */
  invalidate (): void {
    this.#generation++
    this.days = null
    this.dayEntries.clear()
  }

  private fresh<T> (loaded: Loaded<T> | null | undefined): loaded is Loaded<T> {
    return loaded !== null && loaded !== undefined && this.now() - loaded.at < this.refreshMs
  }

  private async listDays (): Promise<string[]> {
    if (this.fresh(this.days)) return this.days.value
    // (a stale listing, kept to tell whether the new one differs)
    const previous = this.days as Loaded<string[]> | null
    const value = await this.once('days', async () => [...await this.discovery.listDays()].sort())
    if (previous === null || previous.value.join() !== value.join()) this.#generation++
    this.days = { value, at: this.now() }
    return value
  }

  private async day (day: string): Promise<RunStep[]> {
    const loaded = this.dayEntries.get(day)
    if (this.fresh(loaded)) return loaded.value
    const previous = loaded as Loaded<RunStep[]> | undefined
    const value = await this.once(`day:${day}`, async () => await this.discovery.listDay(day))
    if (previous === undefined || !sameEntries(previous.value, value)) this.#generation++
    this.dayEntries.set(day, { value, at: this.now() })
    return value
  }

  /** Concurrent callers share one listing request. */
  private async once<T> (key: string, load: () => Promise<T>): Promise<T> {
    const running = this.loading.get(key)
    if (running !== undefined) return await (running as Promise<T>)
    const p = load().finally(() => this.loading.delete(key))
    this.loading.set(key, p)
    return await p
  }
}

function sameEntries (a: RunStep[], b: RunStep[]): boolean {
  return a.length === b.length && a.every((e, k) => e.run === b[k].run && e.step === b[k].step)
}
