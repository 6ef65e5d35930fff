// Shared memory for large samples requests, handed back and reused. On this kind of machine (a
// virtual machine whose freed pages go back to the host) a fresh page costs ~2 µs on first touch:
// the ~17 MB of shared arrays of a 100 000-point request cost ~40 ms of page faults when made new
// each time, ~0.6 ms to clear when reused.
import type { Arrays } from './arrays.js'
import { droppedLarge } from '../memory.js'

/** The large requests' shared memory is in use up to its bound: the caller answers 503. */
export class MemoryBusyError extends Error {
  override readonly name = 'MemoryBusyError'
  constructor (readonly needed: number, readonly limit: number) {
    super(`a large samples request needs ${needed} bytes of shared memory; ${limit} are in use by others`)
  }
}

/**
 * How much shared memory the large requests being computed or written hold together. Each arena
 * counts from when it is taken until it is released; one never released (a failure path that
 * forgot it) is given back once collected.
 */
export class ArenaBudget {
  used = 0
  readonly #unreleased = new FinalizationRegistry<number>((bytes) => { this.used -= bytes })

  constructor (readonly limit: number) {}

  /** Counts `bytes` for `arena`, or MemoryBusyError when they do not fit. */
  take (arena: ArenaArrays, bytes: number): void {
    if (this.used + bytes > this.limit) throw new MemoryBusyError(bytes, this.limit)
    this.used += bytes
    this.#unreleased.register(arena, bytes, arena)
  }

  give (arena: ArenaArrays, bytes: number): void {
    if (this.#unreleased.unregister(arena)) this.used -= bytes
  }
}

/**
 * Bytes per point a worker-computed request may take: ~180 for plan, load and compute, and
 * 12 × 26 for the JSON answer's number columns written in place. Pages never touched (an Arrow
 * answer's share) cost no memory.
 */
export const ARENA_BYTES_PER_POINT = 512
/** Beyond the points: the piece tables, and alignment. */
const ARENA_SLACK = 1 << 20
/** Idle buffers kept for the next request; more are dropped (two large requests at once are kept warm). */
const KEPT_BUFFERS = 2

const idle: SharedArrayBuffer[] = []

/**
 * Arrays carved one after the other out of one SharedArrayBuffer, zeroed as fresh ones are (the
 * plan relies on it); past its end, fresh ones. `release` returns the buffer for another request:
 * call it only when nothing reads or writes the arrays any more (no worker still computing, the
 * answer written). Never released, the buffer is simply collected.
 */
export class ArenaArrays implements Arrays {
  #buffer: SharedArrayBuffer | null
  #used = 0
  readonly #budget: ArenaBudget | undefined

  constructor (buffer: SharedArrayBuffer, budget?: ArenaBudget) {
    this.#buffer = buffer
    this.#budget = budget
    budget?.take(this, buffer.byteLength)
  }

  float64 (n: number): Float64Array {
    const at = this.#take(n * 8)
    return at < 0 ? new Float64Array(new SharedArrayBuffer(n * 8)) : new Float64Array(this.#buffer!, at, n)
  }

  int32 (n: number): Int32Array {
    const at = this.#take(n * 4)
    return at < 0 ? new Int32Array(new SharedArrayBuffer(n * 4)) : new Int32Array(this.#buffer!, at, n)
  }

  uint8 (n: number): Uint8Array {
    const at = this.#take(n)
    return at < 0 ? new Uint8Array(new SharedArrayBuffer(n)) : new Uint8Array(this.#buffer!, at, n)
  }

  /** Bytes as they are (not zeroed): room for a JSON column written in place. */
  bytes (n: number): Uint8Array {
    const at = this.#take(n, false)
    return at < 0 ? new Uint8Array(new SharedArrayBuffer(n)) : new Uint8Array(this.#buffer!, at, n)
  }

  /** Offset of `bytes` zeroed bytes (8-aligned, and so is what follows); −1 when full or released. */
  #take (bytes: number, zeroed = true): number {
    const buffer = this.#buffer
    const at = this.#used
    const words = (bytes + 7) >> 3
    if (buffer === null || at + 8 * words > buffer.byteLength) return -1
    this.#used = at + 8 * words
    // zeroed a double at a time: byte by byte, shared memory is cleared ~8× slower
    if (zeroed) new Float64Array(buffer, at, words).fill(0)
    return at
  }

  release (): void {
    const buffer = this.#buffer
    if (buffer === null) return
    this.#buffer = null
    this.#budget?.give(this, buffer.byteLength)
    idle.push(buffer)
    if (idle.length > KEPT_BUFFERS) {
      idle.sort((a, b) => b.byteLength - a.byteLength)
      // the largest are kept; what is dropped is handed back to the system
      for (const gone of idle.splice(KEPT_BUFFERS)) droppedLarge(gone.byteLength)
    }
  }
}

/** The shared memory a request of n points holds while it is computed and written. */
export function arenaBytes (n: number): number {
  return n * ARENA_BYTES_PER_POINT + ARENA_SLACK
}

/**
 * Arrays for a request of n points: an idle buffer large enough (the smallest such), else a new
 * one; MemoryBusyError when the budget cannot hold it.
 */
export function arenaFor (n: number, budget?: ArenaBudget): ArenaArrays {
  const bytes = arenaBytes(n)
  let best = -1
  for (let k = 0; k < idle.length; k++) {
    if (idle[k].byteLength >= bytes && (best < 0 || idle[k].byteLength < idle[best].byteLength)) best = k
  }
  if (best < 0) {
    if (budget !== undefined && budget.used + bytes > budget.limit) throw new MemoryBusyError(bytes, budget.limit)
    return new ArenaArrays(new SharedArrayBuffer(bytes), budget)
  }
  const buffer = idle[best]
  const arena = new ArenaArrays(buffer, budget) // refused (MemoryBusyError) before the buffer leaves the idle list
  idle.splice(best, 1)
  return arena
}

/** Idle buffers and their bytes (tests). */
export function idleArenas (): { buffers: number, bytes: number } {
  return { buffers: idle.length, bytes: idle.reduce((s, b) => s + b.byteLength, 0) }
}
