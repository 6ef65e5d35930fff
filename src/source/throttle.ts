// Every upstream HTTP request (data and discovery) passes one bottleneck limiter: a concurrency
// cap and a per-interval reservoir under NOAA's 120 requests/minute. With a
// Redis URL the limiter is clustered, so all instances sharing that Redis share the rate.
import Bottleneck from 'bottleneck'
import { Redis } from 'ioredis'
import { parseRedisUrl } from '../redis.js'

/** A job's slot outlives its own timeout by this much before the limiter reclaims it. */
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
  onError?: (err: unknown) => void
}

export class Throttle {
  private readonly limiter: Bottleneck
  private readonly connection: Bottleneck.IORedisConnection | null = null

  constructor (options: ThrottleOptions = {}) {
    const perInterval = options.perInterval ?? 100
    const intervalMs = options.intervalMs ?? 60_000
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
      // small part of the interval so a short test interval is honoured too
      heartbeatInterval: Math.min(5000, Math.max(50, Math.floor(intervalMs / 5)))
    }
    if (options.redisUrl !== undefined) {
      const parsed = parseRedisUrl(options.redisUrl)
      const clientOptions = { maxRetriesPerRequest: 2, enableOfflineQueue: true, ...parsed.options }
      this.connection = new Bottleneck.IORedisConnection((parsed.cluster
        ? { clusterNodes: parsed.nodes, clientOptions, Redis }
        : { client: new Redis(options.redisUrl, clientOptions), Redis }) as Bottleneck.IORedisConnectionOptions)
      this.connection.on('error', (err) => options.onError?.(err))
      // keys expire after a while without use, so stopped clusters leave nothing behind in Redis
      this.limiter = new Bottleneck({ ...settings, datastore: 'ioredis', connection: this.connection,
        clearDatastore: false, timeout: Math.max(300_000, 5 * intervalMs) })
    } else {
      this.limiter = new Bottleneck(settings)
    }
    this.limiter.on('error', (err) => options.onError?.(err))
  }

  /** Resolves once the (clustered) limiter can accept jobs. */
  async ready (): Promise<void> {
    await this.limiter.ready()
  }

  /**
   * Runs `fn` when the limits allow. `timeoutMs` bounds the job: past it (plus a margin) the
   * limiter forgets the job's slot even if its end was never recorded — in a cluster that is
   * what frees slots whose `done` was lost with a Redis restart.
   */
  async schedule<T> (fn: () => Promise<T>, timeoutMs: number): Promise<T> {
    return await this.limiter.schedule({ expiration: timeoutMs + JOB_EXPIRATION_MARGIN_MS }, fn)
  }

  async close (): Promise<void> {
    // connection first: once it is terminated the limiter does not unsubscribe on a closed (or
    // unreachable) socket, which bottleneck would do without catching the failure
    if (this.connection !== null) await this.connection.disconnect(false)
    await this.limiter.disconnect(false)
  }
}
