// The one error type of the HTTP layer and its one renderer (application/problem+json).
import type { ServerResponse } from 'node:http'
import { redactSecrets } from '../accounts/index.js'
import {
  PROBLEM_CODES, problemType, type ProblemCodeName, type Problem, type ValidationErrorItem, type VerticalCoverage,
  MAX_PROBLEM_ERRORS
} from '../contract/index.js'

export interface ProblemOptions {
  detail?: string
  title?: string
  errors?: ValidationErrorItem[]
  coverage?: VerticalCoverage
  /** Extra response headers (Retry-After, Allow, RateLimit-*). */
  headers?: Record<string, string | number>
}

export class HttpProblem extends Error {
  readonly status: number
  constructor (readonly code: ProblemCodeName, readonly options: ProblemOptions = {}) {
    super(options.detail ?? PROBLEM_CODES[code].title)
    this.status = PROBLEM_CODES[code].status
  }
}

/** How long callers are asked to wait while the account store is unreachable. */
export const STORE_RETRY_AFTER_SECONDS = 5

/** The one answer for "the account store cannot be reached": 503 service_unavailable with Retry-After. */
export function storeUnavailable (detail = 'The account store is unreachable; try again shortly.'): HttpProblem {
  return new HttpProblem('service_unavailable', { detail, headers: { 'Retry-After': STORE_RETRY_AFTER_SECONDS } })
}

/** How long a caller should wait while this instance has no data path. */
export const NO_DATA_RETRY_AFTER_SECONDS = 3600

/** The one answer of a data route on an instance without a data path: 503 with Retry-After. */
export function noDataPath (what: string): HttpProblem {
  return new HttpProblem('service_unavailable', {
    detail: `This instance has no data path: ${what} cannot be computed.`,
    headers: { 'Retry-After': NO_DATA_RETRY_AFTER_SECONDS }
  })
}

/** Seconds until `retry` answers make sense again, as the integer ≥ 1 Retry-After needs. */
export function retryAfterSeconds (seconds: number): number {
  return Math.max(1, Math.ceil(seconds))
}

/** Echoed strings (inputs, unknown property names) are cut to this many characters. */
const MAX_ECHO_CHARS = 256
/** An array or object input is echoed only when its JSON is about this small. */
const MAX_ECHO_JSON = 512

const cut = (s: string, n: number): string => s.length > n ? `${s.slice(0, n)}…` : s

/**
 * Whether a parsed JSON value would print in at most `budget` characters, found without printing
 * it (a body may be megabytes). Depth is bounded by the body reader's nesting limit.
 */
function fitsIn (value: unknown, budget: number): number {
  if (budget < 0) return budget
  if (typeof value === 'string') return budget - value.length - 2
  if (value === null || typeof value !== 'object') return budget - 8
  let left = budget - 2
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length && left >= 0; k++) left = fitsIn(value[k], left - 1)
    return left
  }
  for (const key in value) {
    if (left < 0) break
    left = fitsIn((value as Record<string, unknown>)[key], left - key.length - 4)
  }
  return left
}

/**
 * One validation failure as a problem shows it: location segments and string inputs cut short,
 * a large array or object input left out and summarised in `ctx.input_omitted`.
 */
function boundedItem (item: ValidationErrorItem): ValidationErrorItem {
  const loc = item.loc.map((seg) => typeof seg === 'string' ? redactSecrets(cut(seg, MAX_ECHO_CHARS / 2)) : seg)
  const { input, ...rest } = item
  rest.msg = redactSecrets(rest.msg)
  if (rest.ctx !== undefined) rest.ctx = redactEcho(rest.ctx)
  if (typeof input === 'string') return { ...rest, loc, input: redactSecrets(cut(input, MAX_ECHO_CHARS)) }
  if (input === null || typeof input !== 'object' || fitsIn(input, MAX_ECHO_JSON) >= 0) {
    return 'input' in item ? { ...rest, loc, input: redactEcho(input) } : { ...rest, loc }
  }
  const omitted = Array.isArray(input) ? `array of ${input.length} items` : `object of ${Object.keys(input).length} ` +
    `properties`
  return { ...rest, loc, ctx: { ...rest.ctx, input_omitted: omitted } }
}

/** A small echoed value (it fits MAX_ECHO_JSON) with any key-shaped text in it redacted. */
function redactEcho<T> (value: T): T {
  if (value === null || typeof value !== 'object') return value
  const json = JSON.stringify(value)
  return json.includes('aloft') ? JSON.parse(redactSecrets(json)) as T : value
}

export function problemBody (problem: HttpProblem, requestId: string): Problem {
  const { code, options } = problem
  const body: Problem = {
    type: problemType(code),
    title: options.title ?? PROBLEM_CODES[code].title,
    status: problem.status,
    code,
    request_id: requestId,
    // a detail may echo what the client sent: a key put where none belongs is not echoed back
    detail: options.detail === undefined ? null : redactSecrets(options.detail)
  }
  if (options.errors !== undefined) body.errors = options.errors.slice(0, MAX_PROBLEM_ERRORS).map(boundedItem)
  if (options.coverage !== undefined) body.coverage = options.coverage
  return body
}

export function sendProblem (res: ServerResponse, problem: HttpProblem, requestId: string): void {
  const json = JSON.stringify(problemBody(problem, requestId))
  const headers = problem.options.headers ?? {}
  if ('retryAfter' in PROBLEM_CODES[problem.code] && headers['Retry-After'] === undefined) {
    throw new Error(`problem ${problem.code} needs a Retry-After header`)
  }
  res.statusCode = problem.status
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, String(value))
  res.setHeader('Content-Type', 'application/problem+json')
  res.setHeader('Content-Length', Buffer.byteLength(json))
  res.end(json)
}
