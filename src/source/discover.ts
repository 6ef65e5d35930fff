// Reading the catalog (listings, the grid) on behalf of a request: its failures become the
// contract's problems, outside_source_coverage when nothing is there, source_busy otherwise.
import { SourceError, UpstreamFailure } from './errors.js'
import type { SourceLogger } from './types.js'

/** `fn`'s answer; an upstream failure as source_busy (503), or outside_source_coverage when nothing is listed. */
export async function discover<T> (logger: SourceLogger, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (!(err instanceof UpstreamFailure)) throw err
    if (err.kind === 'missing') {
      throw new SourceError('outside_source_coverage', { detail: 'the source holds no GFS files', nearestTimes: [] })
    }
    logger.warn(`GFS catalog discovery failed: ${err.message}`)
    throw new SourceError('source_busy',
      { detail: 'the source cannot be listed right now', retryAfterSeconds: err.retryAfterSeconds ?? 30 })
  }
}
