// A burst a real page makes (the SondeHub predictor's hourly mode: 169 requests at once, docs/
// DESIGN.md §9) waits its turn for a rate token rather than being refused: each caller's waiting
// requests form one queue, only its head asks the store again, once per emission interval (when
// the bucket has refilled by one), so a queue of a hundred costs one store call per token, not a
// hundred. The wait is bounded: past it, the 429 the caller would have had at once.
import type { RateDecision } from '../accounts/index.js'

export class Turns {
  /** Per caller, the promise the newest waiter's turn ends with. */
  readonly #tails = new Map<string, Promise<void>>()

  /**
   * Calls `take` in `caller`'s turn, again every `intervalMs` while it is refused, until it is
   * allowed or `deadline` (epoch ms) passes; the last decision either way.
   */
  async wait (caller: string, intervalMs: number, deadline: number,
    take: () => Promise<RateDecision>): Promise<RateDecision> {
    const before = this.#tails.get(caller)
    let done = (): void => {}
    const mine = new Promise<void>((resolve) => { done = resolve })
    this.#tails.set(caller, mine)
    try {
      if (before !== undefined) await before
      for (;;) {
        const decision = await take()
        if (decision.allowed || Date.now() + intervalMs > deadline) return decision
        await new Promise((resolve) => setTimeout(resolve, intervalMs))
      }
    } finally {
      done()
      if (this.#tails.get(caller) === mine) this.#tails.delete(caller)
    }
  }
}
