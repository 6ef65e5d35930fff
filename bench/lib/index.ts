// What most benchmarks use, from one place: paths, options, tables and results, child processes
// (always killed), the aloft server child and the load generator child, latency summaries and
// profile bodies. The other helpers of bench/lib are imported from their own files.
export { DIST_BENCH, RESULTS, ROOT, SAMPLE } from './paths.js'
export { numberArg } from './args.js'
export { int, machine, ms, table, writeResult } from './report.js'
export { stop, track } from './children.js'
export {
  LOAD_ENV, postProfile, serverCpuUs, serverMemory, startServer, type ServerChild, type ServerInfo
} from './server-child.js'
export { loadgen } from './loadgen-child.js'
export { medianMs, percentile, summarize, type Summary } from './stats.js'
export { profileBody, profileBodies } from './bodies.js'
export { setTimeout as sleep } from 'node:timers/promises'
