// The instance's capacity (docs/DESIGN.md §10): ALOFT_MAX_IN_FLIGHT slots of work; at most
// ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT of them one caller's (an account, or one public client); in
// public mode at most ALOFT_PUBLIC_IN_FLIGHT_SHARE of them held by public callers together, so
// key holders always find room. A native route takes its slot when it starts, or is refused. A
// Tawhiri-path request waits for one without holding any, and the callers waiting are served in
// turn, round robin: a caller with forty requests waiting does not starve one with a single one.
import type { ServerResponse } from 'node:http'
import { isPublicClient } from '../accounts/index.js'
import type { Config } from '../config/index.js'
import { ClientGoneError, stillWanted } from './client-gone.js'
import { HttpProblem } from './problem.js'

/** What a request waited on in vain: the instance's slots, the public callers' share, or its caller's. */
export type Blocked = 'instance' | 'public' | 'caller'

/** A waiter's deadline passed before its slot came. */
export class NoSlotError extends Error {
  override readonly name = 'NoSlotError'
  constructor (readonly blocked: Blocked, readonly caller = '') {
    super(`no slot: ${blocked}`)
  }
}

export interface CapacityLimits {
  /** ALOFT_MAX_IN_FLIGHT. */
  maxInFlight: number
  /** ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT: one caller's slots at most. */
  perCaller: number
  /** Public mode's part of the slots public callers may hold together; undefined: public mode off. */
  publicShare?: number
}

interface Waiter {
  caller: string
  isPublic: boolean
  grant: () => void
}

export class Capacity {
  readonly #max: number
  readonly #perCaller: number
  readonly #publicMax: number
  #working = 0
  #public = 0
  readonly #held = new Map<string, number>()
  /** Callers waiting, in turn order (a caller served goes to the back), each one's waiters first come first. */
  readonly #queues = new Map<string, Waiter[]>()
  #waiting = 0
  #publicWaiting = 0

  constructor (limits: CapacityLimits) {
    this.#max = limits.maxInFlight
    this.#perCaller = limits.perCaller
    this.#publicMax = limits.publicShare === undefined ? 0 : Math.max(1, Math.floor(limits.publicShare * this.#max))
  }

  /** Slots held now, of them public callers', and requests waiting for one. */
  get state (): { working: number, public: number, waiting: number } {
    return { working: this.#working, public: this.#public, waiting: this.#waiting }
  }

  /** The most slots public callers may hold together. */
  get publicMax (): number {
    return this.#publicMax
  }

  /** A native route's slot, held until its answer closes; false when every slot is held. */
  takeInstance (res: ServerResponse): boolean {
    stillWanted(res)
    if (this.#working >= this.#max) return false
    this.#working++
    res.once('close', () => {
      this.#working--
      this.#pump()
    })
    return true
  }

  /** A native route's share of its caller (after the key), held until its answer closes; false when all are held. */
  holdCaller (caller: string, res: ServerResponse): boolean {
    // a client gone while its key was checked has no close to come: nothing may be held for it
    stillWanted(res)
    const held = this.#held.get(caller) ?? 0
    if (held >= this.#perCaller) return false
    this.#held.set(caller, held + 1)
    res.once('close', () => {
      this.#drop(caller)
      this.#pump()
    })
    return true
  }

  /** The caller's requests under way now. */
  heldBy (caller: string): number {
    return this.#held.get(caller) ?? 0
  }

  /** enter's slot when it is free now (and the client still there); false otherwise, nothing taken. */
  tryEnter (caller: string, isPublic: boolean, res: ServerResponse): boolean {
    if (res.destroyed || !this.#fits(caller, isPublic)) return false
    this.#take(caller, isPublic, res)
    return true
  }

  /**
   * A Tawhiri-path request's slot, its caller's share and (a public caller's) the public share, all
   * at once: at once when they are free, else in the caller's turn, until `deadline` (epoch ms).
   * Rejects with NoSlotError naming what was full, or ClientGoneError when the client leaves first.
   */
  async enter (caller: string, isPublic: boolean, res: ServerResponse, deadline: number): Promise<void> {
    if (this.tryEnter(caller, isPublic, res)) return
    stillWanted(res)
    await new Promise<void>((resolve, reject) => {
      let waiting = true
      const leave = (): void => {
        waiting = false
        clearTimeout(timer)
        res.off('close', gone)
        this.#unqueue(waiter)
      }
      const gone = (): void => {
        if (!waiting) return
        leave()
        reject(new ClientGoneError('the client left while it waited its turn'))
      }
      const waiter: Waiter = {
        caller,
        isPublic,
        grant: () => {
          leave()
          this.#take(caller, isPublic, res)
          resolve()
        }
      }
      const timer = setTimeout(() => {
        if (!waiting) return
        leave()
        reject(new NoSlotError(this.#blocking(caller, isPublic), caller))
      }, Math.max(0, deadline - Date.now()))
      res.once('close', gone)
      this.#enqueue(waiter)
    })
  }

  #fits (caller: string, isPublic: boolean): boolean {
    return this.#working < this.#max && (this.#held.get(caller) ?? 0) < this.#perCaller &&
      (!isPublic || this.#public < this.#publicMax)
  }

  #blocking (caller: string, isPublic: boolean): Blocked {
    if ((this.#held.get(caller) ?? 0) >= this.#perCaller) return 'caller'
    return isPublic && this.#public >= this.#publicMax ? 'public' : 'instance'
  }

  #take (caller: string, isPublic: boolean, res: ServerResponse): void {
    this.#working++
    if (isPublic) this.#public++
    this.#held.set(caller, (this.#held.get(caller) ?? 0) + 1)
    res.once('close', () => {
      this.#working--
      if (isPublic) this.#public--
      this.#drop(caller)
      this.#pump()
    })
  }

  #drop (caller: string): void {
    const left = (this.#held.get(caller) ?? 1) - 1
    if (left > 0) this.#held.set(caller, left)
    else this.#held.delete(caller)
  }

  #enqueue (waiter: Waiter): void {
    const queue = this.#queues.get(waiter.caller)
    if (queue === undefined) this.#queues.set(waiter.caller, [waiter])
    else queue.push(waiter)
    this.#waiting++
    if (waiter.isPublic) this.#publicWaiting++
  }

  #unqueue (waiter: Waiter): void {
    const queue = this.#queues.get(waiter.caller)
    const at = queue?.indexOf(waiter) ?? -1
    if (queue === undefined || at === -1) return
    queue.splice(at, 1)
    if (queue.length === 0) this.#queues.delete(waiter.caller)
    this.#waiting--
    if (waiter.isPublic) this.#publicWaiting--
  }

  /** Serves waiters while slots are free: each time the first caller in turn order whose next request fits. */
  #pump (): void {
    while (this.#waiting > 0 && this.#working < this.#max) {
      // only public callers wait and their share is full: nobody fits (the common case under a flood)
      if (this.#publicWaiting === this.#waiting && this.#public >= this.#publicMax) return
      let next: Waiter | undefined
      for (const [caller, queue] of this.#queues) {
        if (this.#fits(caller, queue[0].isPublic)) {
          next = queue[0]
          break
        }
      }
      if (next === undefined) return
      const queue = this.#queues.get(next.caller)!
      next.grant() // unqueues it
      if (queue.length > 0) { // its caller goes to the back of the turn order
        this.#queues.delete(next.caller)
        this.#queues.set(next.caller, queue)
      }
    }
  }
}

/** The 503 of an instance whose slots are all held. */
export function atCapacity (maxInFlight: number): HttpProblem {
  return new HttpProblem('service_unavailable', {
    detail: `This instance is handling ${maxInFlight} requests already; try again shortly.`,
    headers: { 'Retry-After': 1 }
  })
}

/** The 429 of a caller whose share of the instance is all held (`caller`: an account's id or a public client's). */
export function callerFull (held: number, caller: string): HttpProblem {
  return new HttpProblem('rate_limited', {
    detail: `This ${isPublicClient(caller) ? 'client' : 'account'} has ${held} requests under way on this instance, ` +
      'the most it may (ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT); wait for some to finish.',
    headers: { 'Retry-After': 1 }
  })
}

/** What a waiter whose deadline passed is told, by what it waited on. */
export function slotRefusal (err: NoSlotError, capacity: Capacity, config: Config): HttpProblem {
  const { blocked } = err
  if (blocked === 'caller') return callerFull(config.maxInFlightPerAccount, err.caller)
  if (blocked === 'instance') return atCapacity(config.maxInFlight)
  return new HttpProblem('service_unavailable', {
    detail: `Callers without an API key have ${capacity.publicMax} requests under way on this instance together, ` +
      'the most they may (ALOFT_PUBLIC_IN_FLIGHT_SHARE of ALOFT_MAX_IN_FLIGHT); try again shortly, or send an API ' +
      'key (the X-API-Key header, or /k/<your key>/ before the path).',
    headers: { 'Retry-After': 1 }
  })
}
