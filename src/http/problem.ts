// The one error type of the HTTP layer and its one renderer (application/problem+json).
import type { ServerResponse } from 'node:http'
import { PROBLEM_CODES, problemType, type ProblemCodeName } from '../contract/codes.js'
import type { Problem, ValidationErrorItem, VerticalCoverage } from '../contract/schemas.js'

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

/** Seconds until `retry` answers make sense again, as the integer ≥ 1 Retry-After needs. */
export function retryAfterSeconds (seconds: number): number {
  return Math.max(1, Math.ceil(seconds))
}

export function problemBody (problem: HttpProblem, requestId: string): Problem {
  const { code, options } = problem
  const body: Problem = {
    type: problemType(code),
    title: options.title ?? PROBLEM_CODES[code].title,
    status: problem.status,
    code,
    request_id: requestId,
    detail: options.detail ?? null
  }
  if (options.errors !== undefined) body.errors = options.errors
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
