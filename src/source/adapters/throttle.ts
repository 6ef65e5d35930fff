// Every upstream HTTP request (data and discovery) passes one bottleneck limiter: a concurrency
// cap and a per-interval reservoir under NOAA's 120 requests/minute. With a
// Redis URL the limiter is clustered, so all instances sharing that Redis share the rate.
import Bottleneck from 'bottleneck'
import { Redis } from 'ioredis'
import { parseRedisUrl } from '../../redis.js'

/**
 * A job's slot outlives its own timeout by this much before the limiter reclaims it: what frees the
 * slot of a job whose process died with it (a job whose end Redis missed is freed again, keepFrees).
 */
const JOB_EXPIRATION_MARGIN_MS = 1000

export interface ThrottleOptions {
  /** Upstream requests in flight at once (per cluster); default 4. */
  maxConcurrent?: number
  /** Requests allowed per interval (all instances together); default 100 (NOAA blocks above 120/min). */
  perInterval?: number
  /** Default 60 000 ms. */
  intervalMs?: number
  /** Cluster through this Redis; unset: a limiter local to this process. */
  redisUrl?: string
  /**
   * Limiter id in Redis: instances with the same id share limits; default `aloft:{upstream}` (the
   * braces keep all of the limiter's keys in one Redis Cluster slot, as its scripts need).
   */
  id?: string
  /**
   * A clustered client not heard from for this long is taken for dead by the others (its slots
   * freed); default 10 000 ms. Heartbeats go out at a third of it at most.
   */
  clientTimeoutMs?: number
  onError?: (err: unknown) => void
  /** Told how many job slots were freed late (their end had happened while Redis was away). */
  onRefreed?: (count: number) => void
}

/**
 * Bottleneck recovers from a Redis that lost this client's registration (a Redis outage longer
 * than the client timeout) or the limiter's settings (a Redis restart without persistence) only
 * when the script error reads exactly UNKNOWN_CLIENT / SETTINGS_KEY_NOT_FOUND; Redis 7 prefixes
 * script errors with "ERR ", so those paths never run and every job fails from then on. We
 * rebuild the limiter instead: a new one registers afresh and recreates missing settings.
 */
const LOST_STATE = /UNKNOWN_CLIENT|SETTINGS_KEY_NOT_FOUND/

/** At most one rebuild per this many ms (the errors come in bursts). */
const REBUILD_INTERVAL_MS = 1000
/** How often frees that Redis missed are tried again. */
const REFREE_INTERVAL_MS = 250

interface Built { limiter: Bottleneck, connection: Bottleneck.IORedisConnection | null }

/** A clustered limiter's datastore, as far as its slot bookkeeping goes (bottleneck 2.19's RedisDatastore). */
interface SlotStore { __free__: (index: string, weight: number) => Promise<unknown> }

/** A job whose end Redis did not hear of. */
interface LostFree { built: Built, free: SlotStore['__free__'], index: string, weight: number }

export class Throttle {
  private current: Built
  private readonly build: () => Built
  private readonly onError: (err: unknown) => void
  private rebuiltAt = 0
  /** Frees Redis missed while away: replayed until they land (see keepFrees). */
  private readonly lostFrees: LostFree[] = []
  private refreeTimer: NodeJS.Timeout | null = null
  private refreeing = false
  /** Told how many slots were freed late, once Redis heard of them. */
  private readonly onRefreed: (count: number) => void

  constructor (options: ThrottleOptions = {}) {
    const perInterval = options.perInterval ?? 100
    const intervalMs = options.intervalMs ?? 60_000
    const clientTimeout = options.clientTimeoutMs ?? 10_000
    this.onError = options.onError ?? (() => {})
    this.onRefreed = options.onRefreed ?? (() => {})
    const settings: Bottleneck.ConstructorOptions = {
      id: options.id ?? 'aloft:{upstream}',
      maxConcurrent: options.maxConcurrent ?? 4,
      // Half the allowance per interval, in bursts: any sliding window of one interval spans at
      // most two refills, so it never sees more than perInterval requests, and a cold profile's
      // few requests go out at once instead of being spaced (perInterval/interval) apart.
      reservoir: Math.max(1, Math.floor(perInterval / 2)),
      reservoirRefreshAmount: Math.max(1, Math.floor(perInterval / 2)),
      reservoirRefreshInterval: intervalMs,
      // clustered limiters refresh the reservoir on their heartbeat (5 s by default): keep it a
      // small part of the interval so a short test interval is honoured too, and well inside the
      // client timeout so a live client is never taken for dead
      heartbeatInterval: Math.min(5000, Math.max(50, Math.floor(intervalMs / 5)), Math.floor(clientTimeout / 3)),
      clientTimeout
    }
    const redisUrl = options.redisUrl
    this.build = (): Built => {
      if (redisUrl === undefined) return { limiter: this.listen(new Bottleneck(settings)), connection: null }
      const parsed = parseRedisUrl(redisUrl)
      const clientOptions = { maxRetriesPerRequest: 2, enableOfflineQueue: true, ...parsed.options }
      const connection = new Bottleneck.IORedisConnection((parsed.cluster
        ? { clusterNodes: parsed.nodes, clientOptions, Redis }
        : { client: new Redis(redisUrl, clientOptions), Redis }) as Bottleneck.IORedisConnectionOptions)
      connection.on('error', (err) => this.onError(err))
      // keys expire after a while without use, so stopped clusters leave nothing behind in Redis
      const limiter = new Bottleneck({
        ...settings, datastore: 'ioredis', connection, clearDatastore: false, timeout: Math.max(300_000, 5 * intervalMs)
      })
      const built = { limiter: this.listen(limiter), connection }
      this.keepFrees(built)
      return built
    }
    this.current = this.build()
  }

  /**
   * A job ending while Redis is away cannot free its slot there: Redis (restarted from its AOF)
   * would hold the slot until the job's expiration, the upstream timeout and a second, and with the
   * default 30 s every cold fetch of every instance waited that long. Each free that fails is kept
   * and tried again until Redis takes it (freeing a job Redis no longer knows frees nothing).
   */
  private keepFrees (built: Built): void {
    const store = (built.limiter as unknown as { _store?: SlotStore })._store
    if (store === undefined || typeof store.__free__ !== 'function') return
    const free = store.__free__.bind(store)
    store.__free__ = async (index, weight) => {
      try {
        return await free(index, weight)
      } catch (err) {
        this.lostFrees.push({ built, free, index, weight })
        this.refreeTimer ??= setInterval(() => { void this.refree() }, REFREE_INTERVAL_MS)
        this.refreeTimer.unref()
        throw err
      }
    }
  }

  private async refree (): Promise<void> {
    if (this.refreeing) return
    this.refreeing = true
    let landed = 0
    try {
      for (const lost of [...this.lostFrees]) {
        // a limiter rebuilt since (Redis lost its state) has no such job
        if (lost.built !== this.current) {
          this.lostFrees.splice(this.lostFrees.indexOf(lost), 1)
          continue
        }
        try {
          await lost.free(lost.index, lost.weight)
          this.lostFrees.splice(this.lostFrees.indexOf(lost), 1)
          landed++
        } catch {
          break // Redis still away: the next round tries again
        }
      }
    } finally {
      this.refreeing = false
    }
    if (landed > 0) this.onRefreed(landed)
    if (this.lostFrees.length === 0 && this.refreeTimer !== null) {
      clearInterval(this.refreeTimer)
      this.refreeTimer = null
    }
  }

  private listen (limiter: Bottleneck): Bottleneck {
    limiter.on('error', (err) => {
      this.onError(err)
      if (limiter === this.current?.limiter) this.recoverFrom(err)
    })
    return limiter
  }

  /** A new limiter when Redis has lost this one's state; jobs waiting in the old one fail (and are retried). */
  private recoverFrom (err: unknown): void {
    if (!LOST_STATE.test(String((err as Error)?.message)) || Date.now() - this.rebuiltAt < REBUILD_INTERVAL_MS) return
    this.rebuiltAt = Date.now()
    const old = this.current
    this.current = this.build()
    this.onError(new Error('rebuilt the upstream limiter: its Redis had lost the limiter\'s state'))
    void Throttle.dispose(old, true)
  }

  private static async dispose (built: Built, dropWaiting: boolean): Promise<void> {
    try {
      if (dropWaiting) await built.limiter.stop({ dropWaitingJobs: true })
    } catch {
      // already stopping
    }
    // connection first: once it is terminated the limiter does not unsubscribe on a closed (or
    // unreachable) socket, which bottleneck would do without catching the failure
    if (built.connection !== null) await built.connection.disconnect(false)
    await built.limiter.disconnect(false)
  }

  /** Resolves once the (clustered) limiter can accept jobs. */
  async ready (): Promise<void> {
    await this.current.limiter.ready()
  }

  /**
   * Runs `fn` when the limits allow. `timeoutMs` bounds the job: past it (plus a margin) the
   * limiter forgets the job's slot even if its end was never recorded — in a cluster that is
   * what frees slots whose `done` was lost with a Redis restart.
   */
  async schedule<T> (fn: () => Promise<T>, timeoutMs: number): Promise<T> {
    try {
      return await this.current.limiter.schedule({ expiration: timeoutMs + JOB_EXPIRATION_MARGIN_MS }, fn)
    } catch (err) {
      this.recoverFrom(err)
      throw err
    }
  }

  async close (): Promise<void> {
    if (this.refreeTimer !== null) clearInterval(this.refreeTimer)
    this.refreeTimer = null
    this.lostFrees.length = 0
    await Throttle.dispose(this.current, false)
  }
}
