// The explorer's one way to the API: the TypeScript client (@aloft/client) on the page's own origin,
// the key the person entered read on every call, and every failure turned into the problem the
// service answered (RFC 9457) or a plain sentence — never a blank page. No retries: a 429 or 503
// is shown as it is, and the person decides when to ask again.
import {
  createClient, ProblemError, UnreachableError, type AccountInfo, type AtmosphereRequest, type AtmosphereResponse,
  type Capabilities, type TrajectoryRequest, type TrajectoryResponse
} from '@aloft/client'
import { apiKey } from './key.js'

export type { AccountInfo, AtmosphereRequest, AtmosphereResponse, Capabilities, TrajectoryRequest, TrajectoryResponse }

/** An answer other than 2xx, as the person reading the page should see it. */
export class ApiError extends Error {
  constructor (
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    /** The problem document, when the service sent one. */
    readonly problem: Record<string, unknown> | null
  ) {
    super(`${title}: ${detail}`)
  }
}

const client = createClient({ baseUrl: '', apiKey, maxRetries: 0 })

/** The client's errors as the page shows them; an abort passes through. */
async function call<T> (answer: Promise<T>): Promise<T> {
  try {
    return await answer
  } catch (err) {
    if (err instanceof ProblemError) {
      throw new ApiError(err.status, err.title, err.detail ?? '', err.problem as Record<string, unknown> | null)
    }
    if (err instanceof UnreachableError) {
      const cause = err.cause instanceof Error ? err.cause.message : String(err.cause)
      throw new ApiError(0, 'The service did not answer', `${cause}. Is aloft still running?`, null)
    }
    throw err
  }
}

export const api = {
  capabilities: () => call(client.capabilities()),
  /** The account a key belongs to: the one call that checks a key without spending data. */
  account: (key: string) => call(createClient({ baseUrl: '', apiKey: key, maxRetries: 0 }).account()),
  profile: (body: AtmosphereRequest, signal?: AbortSignal) => call(client.profile(body, { signal })),
  trajectory: (body: TrajectoryRequest, signal?: AbortSignal) => call(client.trajectory(body, { signal }))
}
