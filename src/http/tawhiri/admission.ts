// Who calls a Tawhiri path (docs/DESIGN.md §9): a key, from the X-API-Key header or the path
// (`/k/<key>/…`), as on every keyed route; or, in public mode (ALOFT_PUBLIC_TAWHIRI), no key: each
// client address has its own rate bucket in the account store (so instances share it) and all
// public callers one daily allowance (the store's PUBLIC_ACCOUNT). Either way a burst waits its
// turn for a token and an in-flight slot, up to ALOFT_TAWHIRI_BURST_WAIT_MS, before its 429.
import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { PUBLIC_ACCOUNT, PUBLIC_RATE_PREFIX, type AccountStore, type RateDecision } from '../accounts/index.js'
import type { Config } from '../config/index.js'
import type { Metrics } from '../metrics.js'
import type { RouteSpec } from '../contract/index.js'
import type { AccountShare } from './account-share.js'
import { admit, keyGiven, rateHeaders, rateLimited, withStore } from './auth.js'
import type { AloftRequest, AppDeps } from './context.js'
import type { Turns } from './turns.js'

/** What the Tawhiri paths' door keeps across requests. */
export interface TawhiriDoor { share: AccountShare, turns: Turns }

/** The calling account of a Tawhiri path (PUBLIC_ACCOUNT for a public caller), its turn taken. */
export async function tawhiriCaller (
  route: RouteSpec, req: AloftRequest, res: ServerResponse, deps: AppDeps, door: TawhiriDoor
): Promise<string> {
  const { config, store, metrics } = deps
  const deadline = Date.now() + config.tawhiriBurstWaitMs
  let waited = false
  const wait = async (bucket: string, perSecond: number): Promise<RateDecision> => {
    waited = true
    return await door.turns.wait(bucket, 1000 / perSecond, deadline,
      async () => await withStore(() => store.takeRequest(bucket, deps.now?.())))
  }
  const open = config.publicTawhiri
  let accountId: string
  let shareId: string
  try {
    if (keyGiven(req) === '' && open !== undefined) {
      shareId = await admitPublic(req, res, deps, open, async (bucket) => await wait(bucket, open.ratePerSecond))
      accountId = PUBLIC_ACCOUNT
    } else {
      accountId = await admit(req, res, deps, route.unauthorizedTitle,
        async (id) => await wait(id, config.ratePerSecond))
      shareId = accountId
    }
    await door.share.holdWaiting(shareId, res, deadline, () => { waited = true })
  } catch (err) {
    if (waited) metrics.burstWaits.labels('refused').inc()
    throw err
  }
  if (waited) metrics.burstWaits.labels('served').inc()
  return accountId
}

/** A public caller's rate: the bucket of its client address (a digest: no address is stored). */
async function admitPublic (
  req: AloftRequest, res: ServerResponse, deps: AppDeps, open: NonNullable<Config['publicTawhiri']>,
  wait: (bucket: string) => Promise<RateDecision>
): Promise<string> {
  const address = req.socket.remoteAddress ?? ''
  const bucket = PUBLIC_RATE_PREFIX + createHash('sha256').update(address).digest('base64url').slice(0, 22)
  let rate = await withStore(() => deps.store.takeRequest(bucket, deps.now?.()))
  if (!rate.allowed) rate = await wait(bucket)
  if (!rate.allowed) {
    deps.metrics.publicRequests.labels('rate_limited').inc()
    throw rateLimited(rate, `Callers without an API key may make ${open.ratePerSecond} requests per second each ` +
      `(bursts of ${open.rateBurst}). Wait, or send an API key (the X-API-Key header, or /k/<your key>/ before ` +
      'the path) for your own rate.')
  }
  deps.metrics.publicRequests.labels('admitted').inc()
  rateHeaders(res, rate)
  req.accountId = PUBLIC_ACCOUNT
  return bucket
}

/** Public mode's limits on /metrics, and its shared allowance read from the store at each scrape. */
export function publicModeMetrics (metrics: Metrics, store: AccountStore, open: Config['publicTawhiri']): void {
  if (open === undefined) return
  metrics.publicLimits.labels('rate_per_second').set(open.ratePerSecond)
  metrics.publicLimits.labels('rate_burst').set(open.rateBurst)
  metrics.publicLimits.labels('daily_allowance').set(open.dailyAllowance)
  metrics.readPublicAllowance(async () => (await store.allowance(PUBLIC_ACCOUNT)).upstream_attempts)
}
