// The σ an ensemble gets when its caller names only the member count: the explorer's form starts
// with them and `aloft trajectory --members N` sends them, so both spread a flight alike. The API
// itself has no defaults (its σ are 0 unless sent: members would all be the nominal flight).
export const ENSEMBLE_SPREAD_DEFAULTS = {
  ascent_rate_sd: 0.5,
  burst_altitude_sd: 2000,
  descent_rate_sd: 0.5
} as const
