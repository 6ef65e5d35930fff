// The bounded queue of units waiting to download: `concurrency` at once, `maxQueue` waiting, each
// waiter until its deadline; a slot passes straight from a finished unit to the next.
import { SourceError } from '../errors.js'
import { beforeDeadline, pastDeadline } from './deadline.js'
import type { SourceMetrics } from './metrics.js'

interface Waiter { resolve: () => void, reject: (err: Error) => void }

export class FetchSlots {
  private active = 0
  private readonly waiting: Waiter[] = []

  constructor (
    private readonly concurrency: number,
    private readonly maxQueue: number,
    /** How long one request waits for data in all (the source_busy it gets names it). */
    private readonly deadlineMs: number,
    private readonly busyRetryAfter: number,
    private readonly metrics: SourceMetrics
  ) {}

  /** Units downloading now and waiting for a slot. */
  get depth (): { active: number, waiting: number } {
    return { active: this.active, waiting: this.waiting.length }
  }

  /** A download slot; source_busy when the queue is full or the deadline passes while waiting. */
  async acquire (deadline: number): Promise<void> {
    if (this.active < this.concurrency) { this.active++; return }
    if (this.waiting.length >= this.maxQueue) {
      this.metrics.failures.inc({ kind: 'queue_full' })
      throw new SourceError('source_busy', {
        detail: `${this.active} upstream fetches running and ${this.waiting.length} waiting; try again shortly`,
        retryAfterSeconds: Math.max(1, Math.ceil(this.busyRetryAfter / 6))
      })
    }
    let waiter: Waiter | undefined
    const turn = new Promise<void>((resolve, reject) => { waiter = { resolve, reject } })
    this.waiting.push(waiter!)
    this.metrics.queueDepth.set(this.waiting.length)
    try {
      await beforeDeadline(turn, deadline, () => pastDeadline(this.deadlineMs))
    } catch (err) {
      const k = this.waiting.indexOf(waiter!)
      if (k >= 0) this.waiting.splice(k, 1)
      else this.release() // the slot reached us as the deadline passed: hand it on
      this.metrics.queueDepth.set(this.waiting.length)
      throw err
    }
  }

  release (): void {
    const next = this.waiting.shift()
    this.metrics.queueDepth.set(this.waiting.length)
    if (next === undefined) this.active--
    else next.resolve() // the slot passes straight to the next unit
  }
}
