// Routes whose cost grows with the request (samples: per 10 000 points; trajectories: per started
// 10 000 steps) take their tokens beyond the one admission took here, from the caller's own bucket:
// an account's, or a public client's own (docs/DESIGN.md §10), never one strangers share.
import type { ServerResponse } from 'node:http'
import { isPublicClient } from '../accounts/index.js'
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
  const open = isPublicClient(accountId) ? deps.config.publicTawhiri : undefined
  const { ratePerSecond, rateBurst } = open ?? deps.config
  const cost = Math.min(tokens, rateBurst)
  if (cost <= 1) return
  const rate = await withStore(() => deps.store.takeRequest(accountId, deps.now?.(), cost - 1))
  res.setHeader('RateLimit-Remaining', rate.remaining)
  res.setHeader('RateLimit-Reset', rate.reset_seconds)
  if (!rate.allowed) {
    throw new HttpProblem('rate_limited', {
      detail: `${why.what} cost ${cost} request tokens (${why.rule}); ${open === undefined ? 'this account' : 'each ' +
        'caller without an API key'} may spend ${ratePerSecond} per second (bursts of ${rateBurst}).`,
      headers: { 'RateLimit-Limit': rate.limit, 'RateLimit-Remaining': rate.remaining,
        'RateLimit-Reset': rate.reset_seconds, 'Retry-After': retryAfterSeconds(rate.retry_after_seconds) }
    })
  }
}
