// What a refusal is to a caller: the service's problem document (RFC 9457) as an error whose message
// says what to change, and the one failure that has no document (the service did not answer).
// The Python client's errors.py writes the same messages, held to them by a test.
import { fieldPath, inWords, placeInWords, type ErrorItem } from './error-words.js'
import type { components } from './openapi.js'

export type Problem = components['schemas']['Problem']
type Coverage = components['schemas']['VerticalCoverage']

/** An answer other than 2xx, with its problem document (or one made from the status when none came). */
export class ProblemError extends Error {
  readonly status: number
  /** The problem's code (`rate_limited`, `invalid_request` …); null when the answer was not a problem document. */
  readonly code: string | null
  readonly title: string
  readonly detail: string | null
  readonly requestId: string | null
  /** The heights a point serves, on a 409 `outside_vertical_range`. */
  readonly coverage: Coverage | null
  /** What was wrong with each field, on a 400. */
  readonly errors: ErrorItem[]
  /** Seconds the service asked to wait (`Retry-After`) before asking again, when it did. */
  readonly retryAfter: number | null
  /** The whole problem document, extensions included. */
  readonly problem: Problem | null

  constructor (status: number, problem: Problem | null, retryAfter: number | null, statusText = '') {
    const title = problem?.title ?? `HTTP ${status}${statusText !== '' ? ` ${statusText}` : ''}`
    super(describeProblem(status, problem, retryAfter, title))
    this.name = 'ProblemError'
    this.status = status
    this.code = problem?.code ?? null
    this.title = title
    this.detail = problem?.detail ?? null
    this.requestId = problem?.request_id ?? null
    this.coverage = problem?.coverage ?? null
    this.errors = problem?.errors ?? []
    this.retryAfter = retryAfter
    this.problem = problem
  }
}

/** The service did not answer: refused, reset, unknown host, or no answer within the timeout. */
export class UnreachableError extends Error {
  constructor (readonly url: string, cause: unknown) {
    super(`aloft at ${url} did not answer: ${cause instanceof Error ? cause.message : String(cause)}. ` +
      'Check the base URL and that the service is running.', { cause })
    this.name = 'UnreachableError'
  }
}

const metres = (x: number): string => x.toFixed(0)

/** One line per field a 400 names: where it is and what it must be. */
function fieldLines (errors: readonly ErrorItem[]): string[] {
  return errors.map((item) => {
    const path = fieldPath(item.loc)
    const name = path.length === 0 ? 'the request' : path.join('.')
    return `  - ${name} (${placeInWords(item.loc)}): ${inWords(item)}`
  })
}

/** What to change, after the title and detail: the fields, the heights served, the key, the wait. */
function advice (status: number, problem: Problem | null, retryAfter: number | null): string[] {
  const lines: string[] = []
  if (problem?.errors !== undefined && problem.errors.length > 0) lines.push(...fieldLines(problem.errors))
  const coverage = problem?.coverage
  if (coverage !== undefined && coverage !== null) {
    lines.push(`  This point serves ${metres(coverage.minimum_agl_m)}–${metres(coverage.maximum_agl_m)} m ` +
      `above ground (${metres(coverage.minimum_msl_m)}–${metres(coverage.maximum_msl_m)} m above sea level): ` +
      'ask within it, or set surface_layer for heights near the ground.')
  }
  if (status === 401) lines.push('  Give a valid API key (the client\'s api key; ALOFT_API_KEY).')
  if (status === 403) lines.push('  This key or token may not do this; use one that may.')
  if (retryAfter !== null && (status === 429 || status === 503)) {
    lines.push(`  Ask again in ${retryAfter} s (Retry-After).`)
  }
  return lines
}

/** The message: `title (HTTP status, code): detail`, then what to change, then the request id to quote. */
export function describeProblem (status: number, problem: Problem | null, retryAfter: number | null,
  title = problem?.title ?? `HTTP ${status}`): string {
  const code = problem?.code !== undefined ? `, ${problem.code}` : ''
  const detail = problem?.detail !== undefined && problem.detail !== null && problem.detail !== ''
    ? `: ${problem.detail}` : ''
  const head = `${title} (HTTP ${status}${code})${detail}`
  const tail = problem?.request_id !== undefined ? [`  request id ${problem.request_id}`] : []
  return [head, ...advice(status, problem, retryAfter), ...tail].join('\n')
}
