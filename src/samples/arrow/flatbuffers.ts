// A FlatBuffers reader that refuses any read outside its bytes, and the refusal the Arrow stream
// checks throw: an Arrow message's metadata is a FlatBuffer whose every offset and length comes
// from the client.

/** A stream refused: why (too long, or not a usable stream), and where. */
export class ShapeError extends Error {
  /** The column at fault, when one is. */
  column?: string
  constructor (message: string, readonly type: 'arrow' | 'too_long' = 'arrow') {
    super(message)
  }
}

/** The same error, naming its column. */
export function about (column: string, err: unknown): unknown {
  if (err instanceof ShapeError && column !== '') err.column ??= column
  return err
}

/**
 * A FlatBuffers reader that refuses any read outside its bytes. Positions are absolute within
 * the metadata; a table is read through its vtable (a field past the vtable is absent).
 */
export class Flat {
  readonly #view: DataView
  readonly #size: number

  constructor (bytes: Uint8Array) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.#size = bytes.byteLength
  }

  #need (at: number, bytes: number, what: string): void {
    if (!(at >= 0 && at + bytes <= this.#size)) {
      throw new ShapeError(`${what} at byte ${at} lies outside the ${this.#size}-byte metadata`)
    }
  }

  u8 (at: number, what: string): number { this.#need(at, 1, what); return this.#view.getUint8(at) }
  u16 (at: number, what: string): number { this.#need(at, 2, what); return this.#view.getUint16(at, true) }
  i16 (at: number, what: string): number { this.#need(at, 2, what); return this.#view.getInt16(at, true) }
  u32 (at: number, what: string): number { this.#need(at, 4, what); return this.#view.getUint32(at, true) }
  i32 (at: number, what: string): number { this.#need(at, 4, what); return this.#view.getInt32(at, true) }

  /** A non-negative int64 that a double holds exactly. */
  i64 (at: number, what: string): number {
    this.#need(at, 8, what)
    const lo = this.#view.getUint32(at, true)
    const hi = this.#view.getInt32(at + 4, true)
    if (hi < 0 || hi > 0x1fffff) throw new ShapeError(`${what} is ${hi < 0 ? 'negative' : 'too large'}`)
    return hi * 2 ** 32 + lo
  }

  /** The table whose offset is stored at `at` (the root: at 0). */
  table (at: number, what: string): number {
    const table = at + this.u32(at, what)
    // the vtable's place, relative to the table (signed), and its two sizes
    const vtable = table - this.i32(table, what)
    const vsize = this.u16(vtable, `${what}'s vtable`)
    const tsize = this.u16(vtable + 2, `${what}'s vtable`)
    if (vsize < 4 || vsize % 2 !== 0) throw new ShapeError(`${what}'s vtable has an impossible size ${vsize}`)
    this.#need(vtable, vsize, `${what}'s vtable`)
    this.#need(table, Math.max(4, tsize), what)
    return table
  }

  /** Where field `index` of a table lies, or −1 when absent. */
  field (table: number, index: number, bytes: number, what: string): number {
    const vtable = table - this.i32(table, what)
    const vsize = this.u16(vtable, what)
    const slot = 4 + 2 * index
    if (slot + 2 > vsize) return -1
    const offset = this.u16(vtable + slot, what)
    if (offset === 0) return -1
    const tsize = this.u16(vtable + 2, what)
    if (offset + bytes > tsize) throw new ShapeError(`${what} lies past its table's ${tsize} bytes`)
    return table + offset
  }

  /** A vector's element count and first element, each element `size` bytes, all inside the bytes. */
  vector (at: number, size: number, what: string): { count: number, start: number } {
    const vector = at + this.u32(at, what)
    const count = this.u32(vector, `${what}'s length`)
    const start = vector + 4
    if (count * size > this.#size - start) {
      throw new ShapeError(`${what} declares ${count} items; the metadata has room for ` +
        `${Math.max(0, Math.floor((this.#size - start) / size))}`)
    }
    return { count, start }
  }

  /** A string's text. */
  string (at: number, what: string): string {
    const { count, start } = this.vector(at, 1, what)
    return new TextDecoder().decode(new Uint8Array(this.#view.buffer, this.#view.byteOffset + start, count))
  }
}

/** A scalar field, or its default when absent. */
export function scalar (fb: Flat, table: number, index: number, kind: 'u8' | 'i16' | 'i32', fallback: number,
  what: string): number {
  const bytes = kind === 'u8' ? 1 : kind === 'i16' ? 2 : 4
  const at = fb.field(table, index, bytes, what)
  return at < 0 ? fallback : fb[kind](at, what)
}
