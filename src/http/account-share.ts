// One account's share of the instance: at most ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT of its requests
// under way at once, so one busy caller cannot take every slot ALOFT_MAX_IN_FLIGHT allows.
import type { ServerResponse } from 'node:http'
import { HttpProblem } from './problem.js'

/** Counts a request against its account until its answer closes; a 429 when the account has its share. */
export type HoldFor = (accountId: string, res: ServerResponse) => void

export function accountShare (maxInFlightPerAccount: number): HoldFor {
  /** Requests under way per account. */
  const held = new Map<string, number>()
  return (accountId, res) => {
    const now = held.get(accountId) ?? 0
    if (now >= maxInFlightPerAccount) {
      throw new HttpProblem('rate_limited', {
        detail: `This account has ${now} requests under way on this instance, the most it may ` +
          `(ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT); wait for some to finish.`,
        headers: { 'Retry-After': 1 }
      })
    }
    held.set(accountId, now + 1)
    res.once('close', () => {
      const left = (held.get(accountId) ?? 1) - 1
      if (left > 0) held.set(accountId, left)
      else held.delete(accountId)
    })
  }
}
