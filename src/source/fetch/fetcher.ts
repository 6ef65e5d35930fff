// Fetch units: raw-cache first, then single flight per unit key (in this process, and across
// instances through a lock in the shared Redis), a bounded queue of units, one deadline for every
// wait, the allowance charged when an attempt's first request leaves, and the outcome table:
//
// | upstream answer                                        | outcome                                   |
// |--------------------------------------------------------|-------------------------------------------|
// | 404/403, or 200 with NOMADS' "not present" HTML page   | missing: remembered briefly, catalog      |
// |                                                        | refreshed, resolved again (404 if nothing)|
// | 429, 5xx, timeout, broken connection                   | retried with backoff, each retry charged; |
// |                                                        | then 503 source_busy with Retry-After     |
// | not GRIB2, truncated, lacks fields, other run or step  | 502 unusable_source_column                |
// | fetch queue full, or no data before the deadline       | 503 source_busy, nothing charged unless a |
// |                                                        | request had left                          |
// | allowance spent before an attempt                      | 429 daily_allowance_exhausted             |
import { setTimeout as sleep } from 'node:timers/promises'
import type { AccountStore } from '../../accounts/index.js'
import type { GribField } from '../../grib/index.js'
import type { Adapter, Errand, FetchUnit, Origin } from '../adapters/index.js'
import { DiskCache, sha256Hex } from './disk-cache.js'
import { SourceError, UpstreamFailure, type FailureKind, whoseAllowance } from '../errors.js'
import { LOCAL_LOCKS, type UnitLocks } from './unit-locks.js'
import { verifyUnit } from '../unit.js'
import { beforeDeadline, pastDeadline } from './deadline.js'
import { FetchSlots } from './slots.js'
import type { SourceMetrics } from './metrics.js'
import { rfc3339 } from '../../contract/index.js'

/** One unit's bytes as they arrived, checked, with what provenance needs. */
export interface FetchedUnit {
  unitKey: string
  run: Date
  step: number
  origin: Origin
  /** Where the bytes came from (URL or mirror path). */
  url: string
  bytes: Uint8Array
  /** Hex sha256 of exactly `bytes`. */
  sha256: string
  /** When the bytes arrived from upstream (kept across restarts by the raw cache). */
  retrievedAt: Date
  /** Every field of `bytes`, from scanMessages. */
  fields: GribField[]
  /** True when served from the raw disk cache (no upstream attempt). */
  fromCache: boolean
}

export interface FetcherOptions {
  /** Units downloading at once; default 4. */
  concurrency?: number
  /** Units waiting for a download slot before source_busy; default 32. */
  maxQueue?: number
  /** Retries after a 429/5xx/timeout (each charged); default 2. */
  retries?: number
  /** First backoff, doubled per retry; default 1000 ms. */
  backoffMs?: number
  /** Retry-After when upstream gave none; default 30 s. */
  busyRetryAfterSeconds?: number
  /** How long one request may wait for a unit in all; default 20 000 ms. */
  deadlineMs?: number
  /** How often a request waiting on another instance's fetch looks for its result; default 100 ms. */
  pollMs?: number
}

/** A lock outlives the deadline of the fetch holding it by this much. */
const LOCK_MARGIN_MS = 5_000

export class Fetcher {
  private readonly inflight = new Map<string, Promise<FetchedUnit>>()
  private readonly slots: FetchSlots
  private readonly retries: number
  private readonly backoffMs: number
  private readonly busyRetryAfter: number
  /** How long one request may wait for a unit in all. */
  readonly deadlineMs: number
  private readonly pollMs: number

  constructor (
    private readonly adapter: Adapter,
    private readonly store: AccountStore,
    private readonly disk: DiskCache,
    private readonly metrics: SourceMetrics,
    options: FetcherOptions = {},
    private readonly locks: UnitLocks = LOCAL_LOCKS
  ) {
    this.retries = options.retries ?? 2
    this.backoffMs = options.backoffMs ?? 1000
    this.busyRetryAfter = options.busyRetryAfterSeconds ?? 30
    this.deadlineMs = options.deadlineMs ?? 20_000
    this.pollMs = options.pollMs ?? 100
    this.slots = new FetchSlots(options.concurrency ?? 4, options.maxQueue ?? 32, this.deadlineMs, this.busyRetryAfter,
      metrics)
  }

  /** Units downloading now and waiting for a slot. */
  get depth (): { active: number, waiting: number } {
    return this.slots.depth
  }

  /**
   * The unit's bytes: from the raw cache, by joining a fetch already running for the same key
   * (here or on another instance), or by a new fetch charged to `accountId`. Gives up at
   * `deadline` (epoch ms) with source_busy; a fetch it joined goes on for the others. Throws
   * SourceError, or UpstreamFailure('missing').
   */
  async fetch (unit: FetchUnit, accountId: string, deadline: number): Promise<FetchedUnit> {
    for (;;) {
      let running = this.inflight.get(unit.key)
      const own = running === undefined
      if (running === undefined) {
        running = this.load(unit, accountId).finally(() => this.inflight.delete(unit.key))
        this.inflight.set(unit.key, running)
      }
      try {
        return await beforeDeadline(running, deadline, () => pastDeadline(this.deadlineMs))
      } catch (err) {
        // the fetch we joined was refused for another account's allowance: try on our own
        const othersAllowance = err instanceof SourceError && err.code === 'daily_allowance_exhausted' &&
          err.accountId !== accountId
        if (!own && othersAllowance) continue
        throw err
      }
    }
  }

  /** One load of a unit, bounded by its own deadline from now (waiters may give up sooner). */
  private async load (unit: FetchUnit, accountId: string): Promise<FetchedUnit> {
    const deadline = Date.now() + this.deadlineMs
    const cached = await this.fromDisk(unit)
    if (cached !== null) return cached
    this.metrics.rawCache.inc({ result: 'miss' })
    for (;;) {
      if (await this.locks.acquire(unit.key, this.deadlineMs + LOCK_MARGIN_MS)) {
        try {
          // another instance may have landed it between our look at the cache and the lock
          return await this.fromDisk(unit) ?? await this.download(unit, accountId, deadline)
        } finally {
          await this.locks.release(unit.key)
        }
      }
      const landed = await this.waitForOther(unit, deadline)
      if (landed !== null) return landed
      // the holder gave up or died without a result: try to take the fetch over
    }
  }

  /** The unit from the raw cache, or null. */
  private async fromDisk (unit: FetchUnit): Promise<FetchedUnit | null> {
    const cached = await this.disk.get(unit.key)
    if (cached === null) return null
    this.metrics.rawCache.inc({ result: 'hit' })
    return {
      unitKey: unit.key,
      run: new Date(unit.run),
      step: unit.step,
      origin: unit.origin,
      url: cached.record.url,
      bytes: cached.bytes,
      sha256: cached.record.sha256,
      retrievedAt: new Date(cached.record.retrievedAt),
      fields: verifyUnit(cached.bytes, unit),
      fromCache: true
    }
  }

  /**
   * Another instance holds the unit's lock: look for its result in the shared cache until it lands
   * (the result), the lock goes without one (null), or the deadline passes (source_busy).
   */
  private async waitForOther (unit: FetchUnit, deadline: number): Promise<FetchedUnit | null> {
    for (;;) {
      if (Date.now() + this.pollMs > deadline) throw pastDeadline(this.deadlineMs)
      await sleep(this.pollMs)
      const landed = await this.fromDisk(unit)
      if (landed !== null) return landed
      if (!(await this.locks.held(unit.key))) return await this.fromDisk(unit)
    }
  }

  /** Fetches the unit (in a slot of the bounded queue) and keeps it in the raw cache. */
  private async download (unit: FetchUnit, accountId: string, deadline: number): Promise<FetchedUnit> {
    await this.slots.acquire(deadline)
    try {
      const { bytes, fields } = await this.attempts(unit, accountId, deadline)
      const retrievedAt = new Date()
      const sha256 = sha256Hex(bytes)
      const url = this.adapter.locate(unit)
      const record = { unitKey: unit.key, sha256, retrievedAt: retrievedAt.toISOString(), url, bytes: bytes.length }
      await this.disk.put(unit.key, bytes, record)
      const { key: unitKey, run, step, origin } = unit
      return { unitKey, run: new Date(run), step, origin, url, bytes, sha256, retrievedAt, fields, fromCache: false }
    } finally {
      this.slots.release()
    }
  }

  private async attempts (
    unit: FetchUnit, accountId: string, deadline: number
  ): Promise<{ bytes: Uint8Array, fields: GribField[] }> {
    for (let attempt = 0; ; attempt++) {
      const errand = this.errand(unit, accountId, deadline)
      try {
        const bytes = await this.adapter.download(unit, errand)
        return { bytes, fields: verifyUnit(bytes, unit) }
      } catch (err) {
        if (!(err instanceof UpstreamFailure)) throw err
        this.metrics.failures.inc({ kind: err.kind })
        if ((err.kind === 'timeout' || err.kind === 'network') && errand.charged()) {
          this.metrics.aborted.inc({ kind: err.kind })
        }
        if (err.kind === 'missing') throw err
        if (err.kind === 'unusable') {
          throw new SourceError('unusable_source_column',
            { detail: `run ${rfc3339(unit.run)} step ${unit.step} h: ${err.detail}` })
        }
        const backoff = this.backoffMs * 2 ** attempt
        if (attempt >= this.retries || Date.now() + backoff >= deadline) {
          throw new SourceError('source_busy', {
            detail: `upstream failed ${attempt + 1} time(s) for run ${rfc3339(unit.run)} step ${unit.step} h ` +
              `(last: ${kindText(err.kind)})`,
            retryAfterSeconds: err.retryAfterSeconds ?? this.busyRetryAfter
          })
        }
        await sleep(backoff)
      }
    }
  }

  /** One attempt's errand: its deadline, and one charge to `accountId` when its first request leaves. */
  private errand (unit: FetchUnit, accountId: string, deadline: number): Errand & { charged: () => boolean } {
    let charged: Promise<void> | undefined
    const charge = async (): Promise<void> => {
      const reservation = await this.store.reserve(accountId)
      if (!reservation.ok) {
        throw new SourceError('daily_allowance_exhausted', {
          detail: `${whoseAllowance(reservation.state)} for today are used; cached data still serves`,
          retryAfterSeconds: reservation.retry_after_seconds,
          accountId
        })
      }
      this.metrics.attempts.inc({ origin: unit.origin })
    }
    return { deadline, charge: async () => { await (charged ??= charge()) }, charged: () => charged !== undefined }
  }

}

function kindText (kind: FailureKind): string {
  switch (kind) {
    case 'throttled': return 'upstream rate limit (429)'
    case 'server': return 'upstream server error (5xx)'
    case 'timeout': return 'timeout'
    default: return 'connection failure'
  }
}
