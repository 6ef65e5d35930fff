// One account's share of the instance: at most ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT of its requests
// under way at once, so one busy caller cannot take every slot ALOFT_MAX_IN_FLIGHT allows. On the
// Tawhiri paths a request beyond the share waits for a slot (first come, first served) for a
// bounded time before its 429: a page's burst is answered, a runaway script still refused.
import type { ServerResponse } from 'node:http'
import { HttpProblem } from './problem.js'

export interface AccountShare {
  /** Counts a request against its account until its answer closes; a 429 when the account has its share. */
  hold: (accountId: string, res: ServerResponse) => void
  /** The same, waiting until `deadline` (epoch ms) for a slot before the 429; `onWait` when it has to. */
  holdWaiting: (accountId: string, res: ServerResponse, deadline: number, onWait?: () => void) => Promise<void>
}

export function accountShare (maxInFlightPerAccount: number): AccountShare {
  /** Requests under way per account. */
  const held = new Map<string, number>()
  /** Per account, the requests waiting for a slot, first come first. */
  const waiting = new Map<string, Array<() => void>>()

  const release = (accountId: string): void => {
    const queue = waiting.get(accountId)
    const next = queue?.shift()
    if (queue?.length === 0) waiting.delete(accountId)
    if (next !== undefined) {
      next() // the slot passes straight to the next waiter: the count stays
      return
    }
    const left = (held.get(accountId) ?? 1) - 1
    if (left > 0) held.set(accountId, left)
    else held.delete(accountId)
  }
  const take = (accountId: string, res: ServerResponse): void => {
    // a client gone while it waited has no close to come: its slot goes on at once
    if (res.destroyed) release(accountId)
    else res.once('close', () => release(accountId))
  }
  const full = (accountId: string, now: number): HttpProblem => new HttpProblem('rate_limited', {
    detail: `This account has ${now} requests under way on this instance, the most it may ` +
      '(ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT); wait for some to finish.',
    headers: { 'Retry-After': 1 }
  })

  return {
    hold: (accountId, res) => {
      const now = held.get(accountId) ?? 0
      if (now >= maxInFlightPerAccount) throw full(accountId, now)
      held.set(accountId, now + 1)
      take(accountId, res)
    },
    holdWaiting: async (accountId, res, deadline, onWait) => {
      const now = held.get(accountId) ?? 0
      if (now < maxInFlightPerAccount) {
        held.set(accountId, now + 1)
        take(accountId, res)
        return
      }
      onWait?.()
      const queue = waiting.get(accountId) ?? []
      waiting.set(accountId, queue)
      await new Promise<void>((resolve, reject) => {
        const served = (): void => {
          clearTimeout(timer)
          take(accountId, res)
          resolve()
        }
        const timer = setTimeout(() => {
          const k = queue.indexOf(served)
          if (k !== -1) queue.splice(k, 1)
          if (queue.length === 0 && waiting.get(accountId) === queue) waiting.delete(accountId)
          // nothing was handed to it: the count is the holders' alone
          reject(full(accountId, maxInFlightPerAccount))
        }, Math.max(0, deadline - Date.now()))
        queue.push(served)
      })
    }
  }
}
