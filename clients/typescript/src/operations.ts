// Which client method calls which of the service's operations (its OpenAPI operationId), and the
// operations no method calls, each with why. A test holds this table to the service's document,
// so an operation added to the service fails the suite until the client has it or says why not.
export const OPERATIONS = {
  profile: 'get_atmospheric_profile',
  samples: 'get_atmospheric_samples',
  samplesArrow: 'get_atmospheric_samples',
  trajectory: 'predict_trajectory',
  capabilities: 'capabilities_v1_atmosphere_capabilities_get',
  usage: 'usage_v1_atmosphere_usage_get',
  account: 'get_account',
  createKey: 'create_key',
  listKeys: 'list_keys',
  revokeKey: 'revoke_key',
  createAccount: 'create_account',
  health: 'healthz',
  ready: 'readyz',
  openapi: 'openapi'
} as const

export const NOT_CALLED: Record<string, string> = {
  predict_trajectory_get: 'the same flight as predict_trajectory, from query parameters (for Tawhiri\'s GET clients)',
  tawhiri_predict: 'Tawhiri\'s own API, for the Tawhiri clients that speak it; trajectory() is the same flight',
  tawhiri_predict_sondehub: 'Tawhiri\'s API at the SondeHub path, for the SondeHub clients',
  tawhiri_dataset_check: 'the SondeHub fork\'s dataset check, for its clients; capabilities() lists the runs',
  tawhiri_ruaumoko: 'the SondeHub fork\'s ground altitude, for its clients',
  problem_page: 'an HTML page for people, linked from every problem\'s type',
  metrics: 'Prometheus text, for a Prometheus server to scrape'
}
