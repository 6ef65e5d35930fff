// Routes whose cost grows with the request (samples: per 10 000 points; trajectories: per 100
// ensemble members) take their tokens beyond the one admission took here.
import type { ServerResponse } from 'node:http'
import { withStore } from './auth.js'
import { HttpProblem, retryAfterSeconds } from './problem.js'
import type { AppDeps } from './context.js'

/**
 * Takes `tokens − 1` more request tokens (at most a burst in all); a 429 saying why the request
 * costs that many when the account has not got them.
 */
export async function takeTokens (
  deps: AppDeps, accountId: string, tokens: number, why: { what: string, rule: string }, res: ServerResponse
): Promise<void> {
  const cost = Math.min(tokens, deps.config.rateBurst)
  if (cost <= 1) return
  const rate = await withStore(() => deps.store.takeRequest(accountId, deps.now?.(), cost - 1))
  res.setHeader('RateLimit-Remaining', rate.remaining)
  res.setHeader('RateLimit-Reset', rate.reset_seconds)
  if (!rate.allowed) {
    throw new HttpProblem('rate_limited', {
      detail: `${why.what} cost ${cost} request tokens (${why.rule}); this account may spend ` +
        `${deps.config.ratePerSecond} per second (bursts of ${deps.config.rateBurst}).`,
      headers: { 'RateLimit-Limit': rate.limit, 'RateLimit-Remaining': rate.remaining,
        'RateLimit-Reset': rate.reset_seconds, 'Retry-After': retryAfterSeconds(rate.retry_after_seconds) }
    })
  }
}
