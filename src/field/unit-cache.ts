// Decoded units under a byte budget, least recently used first out, shared by all requests.
// A unit being loaded is shared too (single flight): concurrent requests for one key wait on
// one load.

export interface Sized {
  bytes: number
  /** The key the value belongs under, when a load may bring another than the one asked for. */
  key?: string
}

export interface CacheStats { hits: number, misses: number, evictions: number, bytes: number, entries: number }

export class UnitCache<V extends Sized> {
  readonly #entries = new Map<string, V>() // insertion order = recency order
  readonly #loading = new Map<string, Promise<V>>()
  #bytes = 0
  #generation = 0
  readonly stats: CacheStats = { hits: 0, misses: 0, evictions: 0, bytes: 0, entries: 0 }

  constructor (readonly budgetBytes: number, private readonly onEvict?: (key: string, value: V) => void) {}

  /** Changes whenever a unit is stored, replaced or evicted. */
  get generation (): number {
    return this.#generation
  }

  has (key: string): boolean {
    return this.#entries.has(key)
  }

  /** The cached value (refreshing its recency), or undefined. */
  peek (key: string): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  /**
   * The cached value, counted as a hit (refreshing its recency), or undefined, counting nothing:
   * the `get` that follows a miss counts it.
   */
  hit (key: string): V | undefined {
    const value = this.peek(key)
    if (value !== undefined) this.stats.hits++
    return value
  }

  /**
   * The value for `key`: cached, joined to a load under way, or loaded now. `hit` tells the
   * caller which (joined loads count as hits: they cost nothing upstream).
   */
  async get (key: string, load: () => Promise<V>): Promise<{ value: V, hit: boolean }> {
    const cached = this.peek(key)
    if (cached !== undefined) {
      this.stats.hits++
      return { value: cached, hit: true }
    }
    const pending = this.#loading.get(key)
    if (pending !== undefined) {
      this.stats.hits++
      return { value: await pending, hit: true }
    }
    this.stats.misses++
    const promise = load().then((value) => {
      this.set(value.key ?? key, value)
      return value
    }).finally(() => this.#loading.delete(key))
    this.#loading.set(key, promise)
    return { value: await promise, hit: false }
  }

  set (key: string, value: V): void {
    this.#generation++
    const old = this.#entries.get(key)
    if (old !== undefined) {
      this.#entries.delete(key)
      this.#bytes -= old.bytes
      if (old !== value) this.onEvict?.(key, old)
    }
    this.#entries.set(key, value)
    this.#bytes += value.bytes
    // Evict oldest first, but never the entry just stored: a unit larger than the budget still
    // serves the request that loaded it and whoever joins before the next load.
    for (const [k, v] of this.#entries) {
      if (this.#bytes <= this.budgetBytes || k === key) break
      this.#entries.delete(k)
      this.#bytes -= v.bytes
      this.stats.evictions++
      this.onEvict?.(k, v)
    }
    this.stats.bytes = this.#bytes
    this.stats.entries = this.#entries.size
  }
}
