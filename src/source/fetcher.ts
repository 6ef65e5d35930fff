// Fetch units: raw-cache first, then single-flight per unit key, a bounded queue of units, the
// allowance charged before every attempt, and the upstream outcome table:
//
// | upstream answer                                        | outcome                                   |
// |--------------------------------------------------------|-------------------------------------------|
// | 404/403, or 200 with NOMADS' "not present" HTML page   | missing: remembered briefly, catalog      |
// |                                                        | refreshed, resolved again (404 if nothing)|
// | 429, 5xx, timeout, broken connection                   | retried with backoff, each retry charged; |
// |                                                        | then 503 source_busy with Retry-After     |
// | not GRIB2, truncated, lacks fields, other run or step  | 502 unusable_source_column                |
// | fetch queue full                                       | 503 source_busy, nothing charged          |
// | allowance spent before an attempt                      | 429 daily_allowance_exhausted             |
import { setTimeout as sleep } from 'node:timers/promises'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { AccountStore } from '../accounts/store.js'
import type { GribField } from '../grib/index.js'
import type { Adapter, FetchUnit, Origin } from './adapters/index.js'
import { DiskCache, sha256Hex } from './disk-cache.js'
import { SourceError, UpstreamFailure, type FailureKind } from './errors.js'
import { isoTime } from './gfs.js'
import { verifyUnit } from './unit.js'

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
}

export interface SourceMetrics {
  attempts: Counter<'origin'>
  failures: Counter<'kind'>
  queueDepth: Gauge<string>
  rawCache: Counter<'result'>
}

function metric<T> (registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make()
}

export function sourceMetrics (registry: Registry): SourceMetrics {
  const registers = [registry]
  return {
    attempts: metric(registry, 'aloft_upstream_attempts_total', () => new Counter({
      name: 'aloft_upstream_attempts_total',
      help: 'Upstream fetch attempts (each charged to an account), by origin',
      labelNames: ['origin'] as const,
      registers
    })),
    failures: metric(registry, 'aloft_upstream_failures_total', () => new Counter({
      name: 'aloft_upstream_failures_total',
      help: 'Failed upstream attempts, by kind (missing, throttled, server, timeout, network, unusable, queue_full)',
      labelNames: ['kind'] as const,
      registers
    })),
    queueDepth: metric(registry, 'aloft_upstream_fetch_queue_depth', () => new Gauge({
      name: 'aloft_upstream_fetch_queue_depth',
      help: 'Units waiting for an upstream fetch slot',
      registers
    })),
    rawCache: metric(registry, 'aloft_source_raw_cache_total', () => new Counter({
      name: 'aloft_source_raw_cache_total',
      help: 'Raw unit lookups on the disk cache, by result (hit, miss)',
      labelNames: ['result'] as const,
      registers
    }))
  }
}

export class Fetcher {
  private readonly inflight = new Map<string, Promise<FetchedUnit>>()
  private active = 0
  private readonly waiting: Array<() => void> = []
  private readonly concurrency: number
  private readonly maxQueue: number
  private readonly retries: number
  private readonly backoffMs: number
  private readonly busyRetryAfter: number

  constructor (
    private readonly adapter: Adapter,
    private readonly store: AccountStore,
    private readonly disk: DiskCache,
    private readonly metrics: SourceMetrics,
    options: FetcherOptions = {}
  ) {
    this.concurrency = options.concurrency ?? 4
    this.maxQueue = options.maxQueue ?? 32
    this.retries = options.retries ?? 2
    this.backoffMs = options.backoffMs ?? 1000
    this.busyRetryAfter = options.busyRetryAfterSeconds ?? 30
  }

  /** Units downloading now and waiting for a slot. */
  get depth (): { active: number, waiting: number } {
    return { active: this.active, waiting: this.waiting.length }
  }

  /**
   * The unit's bytes: from the raw cache, by joining a fetch already running for the same key,
   * or by a new fetch charged to `accountId`. Throws SourceError, or UpstreamFailure('missing').
   */
  async fetch (unit: FetchUnit, accountId: string): Promise<FetchedUnit> {
    for (;;) {
      let running = this.inflight.get(unit.key)
      if (running === undefined) {
        running = this.load(unit, accountId).finally(() => this.inflight.delete(unit.key))
        this.inflight.set(unit.key, running)
        return await running
      }
      try {
        return await running
      } catch (err) {
        // the fetch we joined was refused for another account's allowance: try on our own
        if (err instanceof SourceError && err.code === 'daily_allowance_exhausted' && err.accountId !== accountId) {
          continue
        }
        throw err
      }
    }
  }

  private async load (unit: FetchUnit, accountId: string): Promise<FetchedUnit> {
    const cached = await this.disk.get(unit.key)
    if (cached !== null) {
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
    this.metrics.rawCache.inc({ result: 'miss' })
    await this.acquire()
    try {
      const { bytes, fields } = await this.attempts(unit, accountId)
      const retrievedAt = new Date()
      const sha256 = sha256Hex(bytes)
      const url = this.adapter.locate(unit)
      await this.disk.put(unit.key, bytes,
        { unitKey: unit.key, sha256, retrievedAt: retrievedAt.toISOString(), url, bytes: bytes.length })
      return { unitKey: unit.key, run: new Date(unit.run), step: unit.step, origin: unit.origin, url, bytes, sha256,
        retrievedAt, fields, fromCache: false }
    } finally {
      this.release()
    }
  }

  private async attempts (unit: FetchUnit, accountId: string): Promise<{ bytes: Uint8Array, fields: GribField[] }> {
    for (let attempt = 0; ; attempt++) {
      const reservation = await this.store.reserve(accountId)
      if (!reservation.ok) {
        throw new SourceError('daily_allowance_exhausted', {
          detail: `the account's ${reservation.state.limit} upstream attempts for today are used; cached data still ` +
            `serves`,
          retryAfterSeconds: reservation.retry_after_seconds,
          accountId
        })
      }
      this.metrics.attempts.inc({ origin: unit.origin })
      try {
        const bytes = await this.adapter.download(unit)
        return { bytes, fields: verifyUnit(bytes, unit) }
      } catch (err) {
        if (!(err instanceof UpstreamFailure)) throw err
        this.metrics.failures.inc({ kind: err.kind })
        if (err.kind === 'missing') throw err
        if (err.kind === 'unusable') {
          throw new SourceError('unusable_source_column',
            { detail: `run ${isoTime(unit.run)} step ${unit.step} h: ${err.message}` })
        }
        if (attempt >= this.retries) {
          throw new SourceError('source_busy', {
            detail: `upstream failed ${attempt + 1} time(s) for run ${isoTime(unit.run)} step ${unit.step} h (last: ` +
              `${kindText(err.kind)})`,
            retryAfterSeconds: err.retryAfterSeconds ?? this.busyRetryAfter
          })
        }
        await sleep(this.backoffMs * 2 ** attempt)
      }
    }
  }

  private async acquire (): Promise<void> {
    if (this.active < this.concurrency) { this.active++; return }
    if (this.waiting.length >= this.maxQueue) {
      this.metrics.failures.inc({ kind: 'queue_full' })
      throw new SourceError('source_busy', {
        detail: `${this.active} upstream fetches running and ${this.waiting.length} waiting; try again shortly`,
        retryAfterSeconds: Math.max(1, Math.ceil(this.busyRetryAfter / 6))
      })
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve))
    this.metrics.queueDepth.set(this.waiting.length)
    await turn
  }

  private release (): void {
    const next = this.waiting.shift()
    this.metrics.queueDepth.set(this.waiting.length)
    if (next === undefined) this.active--
    else next() // the slot passes straight to the next unit
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
