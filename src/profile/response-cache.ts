// Answers to exact repeats of a profile request, keyed by the raw body bytes (before any parsing),
// bounded in bytes, least recently used out first. An answer is only kept when it is the same
// for every caller (its unit was cached and no substitution happened) and only served while the
// data generation it was computed under still holds: a new listing, a unit stored or evicted, a
// run marked missing all change the generation. A short age bound covers what the generation
// cannot see without a resolve (a run that appeared upstream since the catalog last listed).
// The key, rate limit and allowance are checked for every request before this is consulted.
// An answer is kept only when its body comes a second time (a small, bounded set remembers the
// bodies seen once): traffic that never repeats costs a set entry, not a retained answer.

interface Kept { bytes: Buffer, generation: number, until: number, size: number }

/** Bodies remembered as seen once; the set is emptied when full (a doorkeeper, not a cache). */
const SEEN_ONCE = 16_384

export interface ResponseCacheOptions {
  maxBytes: number
  maxAgeMs: number
  /** The data generation now (source and decoded-unit caches). */
  generation: () => number
  now?: () => number
}

export class ResponseCache {
  readonly #entries = new Map<string, Kept>() // insertion order = recency order
  readonly #seen = new Set<string>()
  #bytes = 0
  readonly stats = { hits: 0, misses: 0, stored: 0, evictions: 0 }

  constructor (private readonly options: ResponseCacheOptions) {}

  get bytes (): number {
    return this.#bytes
  }

  get size (): number {
    return this.#entries.size
  }

  /** The data generation now: read it before computing an answer that may be kept. */
  generation (): number {
    return this.options.generation()
  }

  /** The answer to these exact body bytes, when one is kept and still current. */
  get (body: Buffer): Buffer | undefined {
    const key = body.toString('latin1')
    const kept = this.#entries.get(key)
    if (kept === undefined) {
      this.stats.misses++
      return undefined
    }
    if (kept.generation !== this.options.generation() || kept.until <= (this.options.now ?? Date.now)()) {
      this.#drop(key, kept)
      this.stats.misses++
      return undefined
    }
    this.#entries.delete(key)
    this.#entries.set(key, kept)
    this.stats.hits++
    return kept.bytes
  }

  /**
   * Keeps an answer computed under `generation` (read before the work began) when its body has
   * been seen before; a stale one is not kept.
   */
  set (body: Buffer, answer: Buffer | string, generation: number): void {
    if (generation !== this.options.generation()) return
    const key = body.toString('latin1')
    if (!this.#seen.has(key)) {
      if (this.#seen.size >= SEEN_ONCE) this.#seen.clear()
      this.#seen.add(key)
      return
    }
    this.#seen.delete(key)
    // encoded only when kept: most answers never are
    const bytes = typeof answer === 'string' ? Buffer.from(answer, 'utf8') : answer
    const size = key.length * 2 + bytes.length + 64 // the key is a JS string: two bytes a character at most
    if (size > this.options.maxBytes) return
    const old = this.#entries.get(key)
    if (old !== undefined) this.#drop(key, old)
    this.#entries.set(key, { bytes, generation, until: (this.options.now ?? Date.now)() +
      this.options.maxAgeMs, size })
    this.#bytes += size
    this.stats.stored++
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.options.maxBytes) break
      this.#drop(k, v)
      this.stats.evictions++
    }
  }

  #drop (key: string, kept: Kept): void {
    this.#entries.delete(key)
    this.#bytes -= kept.size
  }
}
