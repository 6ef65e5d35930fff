// The source adapters behind one interface (adapter.ts): a mirror directory, the bucket layout
// over HTTP, the NOMADS grib filter, and `noaa` (filter for recent runs, bucket for older ones).
// Every request they send upstream is one GET (http-get.ts) through the one limiter (throttle.ts).
export type { Adapter, FetchUnit, HeldRunStep, Origin } from './adapter.js'
export { DirectoryAdapter, mirrorDirectoryProblem } from './directory.js'
export { BucketAdapter, listObjects } from './bucket.js'
export { FilterAdapter, listingLinks } from './filter.js'
export { NoaaAdapter, NOAA_DEFAULTS } from './noaa.js'
export type { Errand, HttpOptions } from './http-get.js'
export { Throttle } from './throttle.js'
