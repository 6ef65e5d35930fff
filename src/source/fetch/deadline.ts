// One deadline for everything a request waits for upstream data (the fetch queue, another
// request's fetch, the limiter, retries): past it, source_busy.
import { SourceError } from '../errors.js'

/** Why a waiter gave up: the deadline passed. */
export function pastDeadline (deadlineMs: number): SourceError {
  return new SourceError('source_busy', {
    detail: `no upstream data within the ${Math.round(deadlineMs / 1000)} s this instance waits; try again shortly`,
    retryAfterSeconds: 5
  })
}

/** `promise`, or a rejection with `onExpire()` at `deadline` (epoch ms), whichever comes first. */
export async function beforeDeadline<T> (promise: Promise<T>, deadline: number, onExpire: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onExpire()), Math.max(0, deadline - Date.now()))
  })
  try {
    return await Promise.race([promise, expired])
  } finally {
    clearTimeout(timer)
  }
}
