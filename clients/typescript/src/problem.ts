// What a refusal is to a caller: the service's problem document (RFC 9457) as an error whose message
// says what to change, and the one failure that has no document (the service did not answer).
// The Python client's _errors.py writes the same messages, held to them by a test.
import { fieldPath, inWords, placeInWords, type ErrorItem } from './error-words.js'
import type { components } from './openapi.js'

export type Problem = components['schemas']['Problem']
type Coverage = components['schemas']['VerticalCoverage']

/** An answer that is not a problem document: its status line and the start of its body, for the message. */
export interface PlainAnswer { statusText?: string, excerpt?: string }

/** Characters of a non-problem answer's body kept as its detail (a proxy's page, say). */
export const EXCERPT_CHARS = 300

const present = <T>(x: T | null | undefined): x is T => x !== undefined && x !== null

/** An answer other than 2xx (or a 2xx that is not what was asked), with its problem document when one came. */
export class ProblemError extends Error {
  readonly status: number
  /** The problem's code (`rate_limited`, `invalid_request` …); null when the answer was not a problem document. */
  readonly code: string | null
  readonly title: string
  /** The problem's detail; for an answer that was not a problem document, the start of its body. */
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

  constructor (status: number, problem: Problem | null, retryAfter: number | null, plain: PlainAnswer = {}) {
    const title = problem?.title ?? plainTitle(status, plain.statusText)
    const detail = problem !== null ? problem.detail ?? null : plainDetail(plain.excerpt)
    super(describeProblem(status, problem, retryAfter, title, detail))
    this.name = 'ProblemError'
    this.status = status
    this.code = problem?.code ?? null
    this.title = title
    this.detail = detail
    this.requestId = problem?.request_id ?? null
    this.coverage = problem?.coverage ?? null
    this.errors = problem?.errors ?? []
    this.retryAfter = retryAfter
    this.problem = problem
  }
}

const plainTitle = (status: number, statusText = ''): string =>
  `HTTP ${status}${statusText !== '' ? ` ${statusText}` : ''}`
const plainDetail = (excerpt = ''): string | null => {
  const text = excerpt.slice(0, EXCERPT_CHARS).trim()
  return text === '' ? null : text
}

/** The service did not answer: refused, reset, unknown host, or no (whole) answer within the timeout. */
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

/** What to change, after the title and detail: the fields, the heights served, the key, the address, the wait. */
function advice (status: number, problem: Problem | null, retryAfter: number | null): string[] {
  const lines: string[] = []
  if (present(problem?.errors) && problem.errors.length > 0) lines.push(...fieldLines(problem.errors))
  const coverage = problem?.coverage
  if (present(coverage)) {
    lines.push(`  This point serves ${metres(coverage.minimum_agl_m)}–${metres(coverage.maximum_agl_m)} m ` +
      `above ground (${metres(coverage.minimum_msl_m)}–${metres(coverage.maximum_msl_m)} m above sea level): ` +
      'ask within it, or set surface_layer for heights near the ground.')
  }
  if (status === 401) lines.push('  Give a valid API key (the client\'s api key; ALOFT_API_KEY).')
  if (status === 403) lines.push('  This key or token may not do this; use one that may.')
  if (status >= 300 && status < 400) {
    lines.push('  The client follows no redirect (it would carry the key elsewhere): give the address it points to.')
  }
  if (retryAfter !== null && (status === 429 || status === 503)) {
    lines.push(`  Ask again in ${retryAfter} s (Retry-After).`)
  }
  return lines
}

/**
 * The message: `title (HTTP status, code): detail`, then what to change, then the request id to quote.
 * `title` and `detail` default to the problem's; for an answer with no problem document, give them.
 */
export function describeProblem (status: number, problem: Problem | null, retryAfter: number | null,
  title = problem?.title ?? plainTitle(status), detail = problem?.detail ?? null): string {
  const code = present(problem?.code) ? `, ${problem.code}` : ''
  const head = `${title} (HTTP ${status}${code})${present(detail) && detail !== '' ? `: ${detail}` : ''}`
  const tail = present(problem?.request_id) ? [`  request id ${problem.request_id}`] : []
  return [head, ...advice(status, problem, retryAfter), ...tail].join('\n')
}
