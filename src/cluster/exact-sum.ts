// A sum of floating-point numbers kept exactly (Shewchuk's non-overlapping partials, as Python's
// math.fsum), read correctly rounded. The host's counters and histogram sums are sums over its
// processes; a plain running sum rounds differently as processes come and go (or merely in another
// order), and a counter read one floating-point step lower than before is a reset to Prometheus.
// The exact sum of values that only grow only grows, and so does its correctly rounded value.

export class ExactSum {
  /** Non-overlapping partials, smallest magnitude first; their exact sum is the sum. */
  readonly #partials: number[] = []

  add (value: number): void {
    let x = value
    let i = 0
    for (const partial of this.#partials) {
      let y = partial
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
      const hi = x + y
      const lo = y - (hi - x)
      if (lo !== 0) this.#partials[i++] = lo
      x = hi
    }
    this.#partials.length = i
    this.#partials.push(x)
  }

  /** Adds every partial of another exact sum: exact, as adding its values one by one would be. */
  addAll (other: ExactSum): void {
    for (const partial of other.#partials) this.add(partial)
  }

  /** The sum, correctly rounded to the nearest double (ties to even). */
  value (): number {
    const p = this.#partials
    let n = p.length
    if (n === 0) return 0
    let hi = p[--n]
    let lo = 0
    while (n > 0) {
      const x = hi
      const y = p[--n]
      hi = x + y
      lo = y - (hi - x)
      if (lo !== 0) break
    }
    // a remainder of exactly half an ulp rounds to even unless the next partial breaks the tie
    if (n > 0 && ((lo < 0 && p[n - 1] < 0) || (lo > 0 && p[n - 1] > 0))) {
      const y = lo * 2
      const x = hi + y
      if (y === x - hi) hi = x
    }
    return hi
  }
}

/** The correctly rounded sum of `values`, whatever their order. */
export function exactSum (values: Iterable<number>): number {
  const sum = new ExactSum()
  for (const v of values) sum.add(v)
  return sum.value()
}
