// The primary of a host serving with several processes (docs/DESIGN.md §11): it forks them, tells
// them the host's state, gathers their metrics, replaces one that dies (restart-delay.ts), passes
// SIGTERM and SIGINT on for a graceful drain of every process, and ends with the exit code of a
// start-up that failed in them (a busy port: 3, as a single process would).
import cluster, { type Worker } from 'node:cluster'
import type { Logger } from '../logger.js'
import { HostMetrics } from './host-metrics.js'
import { isMessage, type HostState, type ToPrimary, type ToProcess } from './messages.js'
import { restartDelayMs, STABLE_MS } from './restart-delay.js'

/** Beyond the processes' own grace period, how long a stop waits before killing what still runs. */
const KILL_AFTER_GRACE_MS = 5000

interface Slot {
  worker: Worker | undefined
  startedAt: number
  ready: boolean
  /** Processes of this slot that died within STABLE_MS of starting, in a row. */
  quickDeaths: number
  restart: NodeJS.Timeout | undefined
}

export interface SupervisorOptions {
  processes: number
  /** The processes' own drain time (ALOFT_SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number
  logger: Logger
}

export class Supervisor {
  readonly metrics = new HostMetrics()
  readonly #slots: Slot[]
  readonly #options: SupervisorOptions
  #started = false
  #stopping = false
  #exitCode = 0
  #finish: (code: number) => void = () => {}

  constructor (options: SupervisorOptions) {
    this.#options = options
    this.#slots = Array.from({ length: options.processes },
      () => ({ worker: undefined, startedAt: 0, ready: false, quickDeaths: 0, restart: undefined }))
  }

  /** Forks every process; resolves with the host's exit code once it has stopped. */
  run (): Promise<number> {
    const ended = new Promise<number>((resolve) => { this.#finish = resolve })
    // every signal is heard (a second Ctrl-C must not end the primary, and with it every process, mid-drain)
    process.on('SIGTERM', () => this.stop('SIGTERM'))
    process.on('SIGINT', () => this.stop('SIGINT'))
    // Each process accepts its own connections from the shared socket (docs/DESIGN.md §11): the
    // primary stays out of the data path, and a process that dies takes only the connections it
    // accepted with it (closed at once by the kernel), never one the primary was handing over.
    // Node's own NODE_CLUSTER_SCHED_POLICY=rr still chooses round-robin (for comparison: bench/cores).
    cluster.schedulingPolicy = process.env.NODE_CLUSTER_SCHED_POLICY === 'rr' ? cluster.SCHED_RR : cluster.SCHED_NONE
    // NaN (a gauge whose store is away) and Infinity (a histogram's +Inf) survive the channel as they are
    cluster.setupPrimary({ serialization: 'advanced' })
    for (const slot of this.#slots) this.#fork(slot)
    this.#publish()
    return ended
  }

  get state (): HostState {
    return { serving: this.#slots.filter((s) => s.ready).length, configured: this.#slots.length }
  }

  /** Drains every process (each finishes what it holds); kills what still runs after the grace period. */
  stop (signal: string): void {
    if (this.#stopping) return
    this.#stopping = true
    this.#options.logger.info({ signal, processes: this.#live().length }, 'shutting down the host')
    for (const slot of this.#slots) clearTimeout(slot.restart)
    for (const w of this.#live()) w.process.kill('SIGTERM')
    setTimeout(() => {
      for (const w of this.#live()) {
        this.#options.logger.error({ pid: w.process.pid }, 'a process did not stop within its grace period: killed')
        this.#failed(1)
        w.process.kill('SIGKILL')
      }
    }, this.#options.shutdownGraceMs + KILL_AFTER_GRACE_MS).unref()
    this.#endIfDone()
  }

  /** The host's exit code: the first failure's (a start-up's own code stays). */
  #failed (code: number): void {
    if (this.#exitCode === 0) this.#exitCode = code
  }

  #live (): Worker[] {
    return this.#slots.flatMap((s) => s.worker === undefined ? [] : [s.worker])
  }

  #fork (slot: Slot): void {
    slot.restart = undefined
    const worker = cluster.fork()
    Object.assign(slot, { worker, startedAt: Date.now(), ready: false })
    worker.on('message', (message: unknown) => {
      // a late word of a process already replaced is not its replacement's
      if (isMessage<ToPrimary>(message) && slot.worker === worker) this.#heard(slot, worker, message)
    })
    worker.on('exit', (code, signal) => this.#exited(slot, worker, code, signal))
    // a message to a process that is dying fails; its exit is what counts
    worker.on('error', (err) => this.#options.logger.debug({ err, pid: worker.process.pid }, 'process channel error'))
  }

  #heard (slot: Slot, worker: Worker, message: ToPrimary): void {
    if (message.aloft === 'ready') {
      slot.ready = true
      this.#publish()
      if (!this.#started && this.#slots.every((s) => s.ready)) {
        this.#started = true
        this.#options.logger.info({ url: message.url, processes: this.#slots.length }, 'aloft listening')
      }
    } else if (message.aloft === 'host-metrics') {
      this.metrics.gather(this.#live()).then((text) => {
        if (worker.isConnected()) worker.send({ aloft: 'metrics-text', id: message.id, text } satisfies ToProcess)
      }).catch((err: unknown) => {
        // the asking process answers with its own metrics once its wait is over
        this.#options.logger.error({ err }, 'the host\'s metrics could not be gathered')
      })
    } else if (message.aloft === 'own-metrics') {
      this.metrics.received(message.id, worker.id, message.metrics)
    }
  }

  #exited (slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return
    const wasReady = slot.ready
    Object.assign(slot, { worker: undefined, ready: false })
    this.metrics.retire(worker.id)
    this.#publish()
    if (this.#stopping) {
      if (code !== null && code !== 0) this.#failed(code) // a process that failed while draining
      this.#endIfDone()
      return
    }
    const how = signal ?? `exit ${code}`
    if (!this.#started && !wasReady) {
      // a start that fails in one process fails in all: stop the others and exit with its code
      this.#failed(code === null || code === 0 ? 1 : code)
      this.#options.logger.error({ pid: worker.process.pid, how }, 'a process could not start; stopping the host')
      this.stop('start-up failure')
      return
    }
    slot.quickDeaths = Date.now() - slot.startedAt < STABLE_MS ? slot.quickDeaths + 1 : 1
    const delayMs = restartDelayMs(slot.quickDeaths)
    this.metrics.restarts.labels(signal ?? String(code)).inc()
    this.#options.logger.error({ pid: worker.process.pid, how, restart_in_ms: delayMs }, 'a process died; replacing it')
    slot.restart = setTimeout(() => this.#fork(slot), delayMs)
  }

  /** Every process hears the host's state when it changes (readiness reports it). */
  #publish (): void {
    const state = this.state
    this.metrics.state = state
    for (const w of this.#live()) {
      if (w.isConnected()) w.send({ aloft: 'host', state } satisfies ToProcess)
    }
  }

  #endIfDone (): void {
    if (this.#stopping && this.#live().length === 0) this.#finish(this.#exitCode)
  }
}
