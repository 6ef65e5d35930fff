// Reused memory for large request bodies (bulk samples: up to tens of MB). A new buffer's pages
// cost ~2 µs each on first touch on this kind of virtual machine: joining an 8 MB body's chunks
// into a new buffer took ~15 ms, copying them into a reused one ~0.3 ms.

/** Idle buffers kept; more are dropped. */
const KEPT = 2

export class BodyBuffers {
  readonly #idle: ArrayBuffer[] = []
  /** The buffers this pool handed out: only those come back (a small Buffer shares Node's pool slab). */
  readonly #ours = new WeakSet<ArrayBuffer>()

  /** A buffer of `n` bytes, as they are: an idle one large enough (the smallest such), else a new one. */
  take (n: number): Buffer {
    let best = -1
    for (let k = 0; k < this.#idle.length; k++) {
      const size = this.#idle[k].byteLength
      if (size >= n && (best < 0 || size < this.#idle[best].byteLength)) best = k
    }
    let memory: ArrayBuffer
    if (best >= 0) {
      memory = this.#idle.splice(best, 1)[0]
    } else {
      memory = new ArrayBuffer(n)
      this.#ours.add(memory)
    }
    return Buffer.from(memory, 0, n)
  }

  /** Hands a body back once nothing reads it (nor any view of it); others' buffers are ignored. */
  give (bytes: Uint8Array): void {
    const memory = bytes.buffer
    if (!(memory instanceof ArrayBuffer) || !this.#ours.has(memory) || this.#idle.includes(memory)) return
    this.#idle.push(memory)
    if (this.#idle.length > KEPT) {
      this.#idle.sort((a, b) => b.byteLength - a.byteLength)
      this.#idle.length = KEPT
    }
  }

  /** Idle buffers (tests). */
  get idle (): number {
    return this.#idle.length
  }
}
