// Decoded units under a byte budget, least recently used first out, shared by all requests.
// A unit being loaded is shared too (single flight): concurrent requests for one key wait on
// one load.

export interface Sized {
  bytes: number
  /** The key the value belongs under, when a load may bring another than the one asked for. */
  key?: string
}

export interface CacheStats { hits: number, misses: number, evictions: number, bytes: number, entries: number }

/** A cached value and when it was last used (a tick of the cache's own clock). */
interface Slot<V> { value: V, used: number }

export class UnitCache<V extends Sized> {
  // Recency is a tick on each slot, not the Map's order: moving a hit to the end (delete, set)
  // on every request cost ~1 µs with the keys callers build per request (concatenated strings,
  // stored in place of the old key and compared unflattened); eviction, once per load at most,
  // scans for the oldest instead.
  readonly #entries = new Map<string, Slot<V>>()
  readonly #loading = new Map<string, Promise<V>>()
  #clock = 0
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
    const slot = this.#entries.get(key)
    if (slot === undefined) return undefined
    slot.used = ++this.#clock
    return slot.value
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
      this.#bytes -= old.value.bytes
      if (old.value !== value) this.onEvict?.(key, old.value)
      old.value = value
      old.used = ++this.#clock
    } else {
      this.#entries.set(key, { value, used: ++this.#clock })
    }
    this.#bytes += value.bytes
    // Evict least recently used first, but never the entry just stored: a unit larger than the
    // budget still serves the request that loaded it and whoever joins before the next load.
    while (this.#bytes > this.budgetBytes) {
      let oldestKey: string | undefined
      let oldest: Slot<V> | undefined
      for (const [k, slot] of this.#entries) {
        if (k !== key && (oldest === undefined || slot.used < oldest.used)) { oldestKey = k; oldest = slot }
      }
      if (oldestKey === undefined || oldest === undefined) break
      this.#entries.delete(oldestKey)
      this.#bytes -= oldest.value.bytes
      this.stats.evictions++
      this.onEvict?.(oldestKey, oldest.value)
    }
    this.stats.bytes = this.#bytes
    this.stats.entries = this.#entries.size
  }
}
