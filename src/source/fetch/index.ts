// The source's fetch machinery, a room inside the source room: the throttled single-flight fetcher
// and its outcome table (fetcher.ts), its queue of units (slots.ts), one deadline for every wait of
// a request (deadline.ts), its Prometheus series (metrics.ts), single flight across instances
// (unit-locks.ts) and the raw disk cache (disk-cache.ts). The rest of src/source enters it here.
export { DiskCache } from './disk-cache.js'
export { beforeDeadline } from './deadline.js'
export { Fetcher, type FetchedUnit, type FetcherOptions } from './fetcher.js'
export { sourceMetrics } from './metrics.js'
export { RedisUnitLocks, type UnitLocks } from './unit-locks.js'
