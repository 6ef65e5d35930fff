// One deadline for everything a request waits for upstream data (the fetch queue, another
// request's fetch, the limiter, retries): past it, source_busy.
import { SourceError } from '../errors.js'
import { withinMs } from '../../timers.js'

/** Why a waiter gave up: the deadline passed. */
export function pastDeadline (deadlineMs: number): SourceError {
  return new SourceError('source_busy', {
    detail: `no upstream data within the ${Math.round(deadlineMs / 1000)} s this instance waits; try again shortly`,
    retryAfterSeconds: 5
  })
}

/**
 * `promise`, or a rejection with `onExpire()` at `deadline` (epoch ms), whichever comes first (an
 * answer that arrived by then counts, though a busy loop has not read it yet: src/timers.ts).
 */
export async function beforeDeadline<T> (promise: Promise<T>, deadline: number, onExpire: () => Error): Promise<T> {
  return await withinMs(promise, deadline - Date.now(), () => { throw onExpire() })
}
