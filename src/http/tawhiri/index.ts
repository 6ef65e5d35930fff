// The Tawhiri room (docs/DESIGN.md §9, §10), entered through this index.ts: what the compat paths
// (/api/v1/, /tawhiri, /api/datasetcheck, /api/ruaumoko/) and the public service behind them need —
// the key in the path (path-key.ts), who a caller is (client.ts: its address through trusted
// proxies), its turn (admission.ts, with turns.ts for the rate), the query read by Tawhiri's rules
// (request.ts), the handlers (handlers.ts), Tawhiri's error shape (error.ts) and public mode's
// metrics (metrics.ts). The app's capacity, CORS and error sink are the http room's.
export { TawhiriAdmission } from './admission.js'
export { addressGroup, ClientAddresses } from './client.js'
export { sendTawhiriError, tawhiriErrorBody } from './error.js'
export { tawhiriHandlers } from './handlers.js'
export { publicModeMetrics } from './metrics.js'
export { splitPathKey, takePathKey } from './path-key.js'
