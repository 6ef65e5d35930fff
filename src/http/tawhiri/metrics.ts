// Public mode on /metrics: its limits as configured, and the shared allowance read from the store
// at each scrape.
import { PUBLIC_ACCOUNT, type AccountStore } from '../../accounts/index.js'
import type { Config } from '../../config/index.js'
import type { Metrics } from '../../metrics.js'

export function publicModeMetrics (metrics: Metrics, store: AccountStore, open: Config['publicTawhiri']): void {
  if (open === undefined) return
  metrics.publicLimits.labels('rate_per_second').set(open.ratePerSecond)
  metrics.publicLimits.labels('rate_burst').set(open.rateBurst)
  metrics.publicLimits.labels('daily_allowance').set(open.dailyAllowance)
  metrics.publicLimits.labels('daily_allowance_per_client').set(open.dailyAllowancePerClient)
  metrics.publicLimits.labels('in_flight_share').set(open.inFlightShare)
  metrics.readPublicAllowance(async () => (await store.allowance(PUBLIC_ACCOUNT)).upstream_attempts)
}
