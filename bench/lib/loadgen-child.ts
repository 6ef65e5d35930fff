// The load generator child (bench/children/loadgen.ts): a run in a process of its own, so it never
// shares an event loop with the server it measures.
import { spawn } from 'node:child_process'
import { firstJsonLine, stop, track } from './children.js'
import type { LoadResult, LoadSpec } from './load-spec.js'
import { DIST_BENCH } from './paths.js'

/** Run the Node load generator in its own process; resolves with its result. */
export async function loadgen (spec: LoadSpec): Promise<LoadResult> {
  const child = track(spawn(process.execPath, [`${DIST_BENCH}children/loadgen.js`, JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'pipe']
  }))
  try {
    const bound = (spec.seconds + (spec.warmupSeconds ?? 0) + (spec.drainSeconds ?? 10) + 30) * 1000
    return await firstJsonLine<LoadResult>(child, 'bench/loadgen', bound)
  } finally {
    await stop(child)
  }
}
