// A burst a real page makes (the SondeHub predictor's hourly mode: 169 requests at once, docs/
// DESIGN.md §9) waits its turn for a rate token rather than being refused: each caller's waiting
// requests form one queue, and only one asks the store again, once per emission interval (when the
// bucket has refilled by one), so a queue of forty costs one store call per token, not forty. The
// wait is bounded: past its deadline a request gets the refusal it would have had at once. A
// request whose client leaves is dropped from the queue at once; a token already taken when it
// left goes to the next in line, never to nobody while someone waits (docs/DESIGN.md §10).
import type { ServerResponse } from 'node:http'
import type { RateDecision } from '../../accounts/index.js'
import { ClientGoneError, stillWanted } from '../client-gone.js'

interface Waiter {
  deadline: number
  settle: (decision: RateDecision) => void
  fail: (err: unknown) => void
}

interface Queue {
  waiters: Waiter[]
  /** The caller's bucket: the same store call whoever is first in line. */
  take: () => Promise<RateDecision>
  intervalMs: number
  /** The newest refusal, for those whose deadline comes before the next try. */
  last: RateDecision
}

export class Turns {
  readonly #queues = new Map<string, Queue>()

  /**
   * The decision that ends `res`'s wait in `caller`'s queue, `refused` having just refused it: a
   * token (allowed), or the last refusal once `deadline` (epoch ms) is nearer than the next try.
   * `take` asks the caller's bucket, every `intervalMs` while it is refused. Rejects with
   * ClientGoneError when the client leaves first, and with the store's error when it fails.
   */
  async wait (caller: string, intervalMs: number, deadline: number, take: () => Promise<RateDecision>,
    res: ServerResponse, refused: RateDecision): Promise<RateDecision> {
    stillWanted(res)
    let queue = this.#queues.get(caller)
    const first = queue === undefined
    if (queue === undefined) this.#queues.set(caller, queue = { waiters: [], take, intervalMs, last: refused })
    const waiters = queue.waiters
    const decided = new Promise<RateDecision>((resolve, reject) => {
      const gone = (): void => {
        const at = waiters.indexOf(waiter)
        if (at === -1) return
        waiters.splice(at, 1)
        reject(new ClientGoneError('the client left while it waited for a rate token'))
      }
      const waiter: Waiter = {
        deadline,
        settle: (decision) => {
          res.off('close', gone)
          resolve(decision)
        },
        fail: (err) => {
          res.off('close', gone)
          reject(err)
        }
      }
      res.once('close', gone)
      waiters.push(waiter)
    })
    if (first) void this.#serve(caller, queue)
    return await decided
  }

  /**
   * One caller's queue, served until empty: whoever is out of time before the next try hears the
   * last refusal; after an interval, a token for the first in line.
   */
  async #serve (caller: string, queue: Queue): Promise<void> {
    const { waiters } = queue
    try {
      while (waiters.length > 0) {
        const nextTry = Date.now() + queue.intervalMs
        for (let k = waiters.length - 1; k >= 0; k--) {
          if (waiters[k].deadline < nextTry) waiters.splice(k, 1)[0].settle(queue.last)
        }
        if (waiters.length === 0) return
        await new Promise((resolve) => setTimeout(resolve, queue.intervalMs))
        if (waiters.length === 0) return
        let decision: RateDecision
        try {
          decision = await queue.take()
        } catch (err) {
          // the store failed: everyone in line hears it (a 503), nobody waits on a broken store
          for (const w of waiters.splice(0)) w.fail(err)
          return
        }
        if (decision.allowed) waiters.shift()?.settle(decision)
        else queue.last = decision
      }
    } finally {
      if (this.#queues.get(caller) === queue) this.#queues.delete(caller)
    }
  }
}
