// A refusal on a Tawhiri path in Tawhiri's shape (docs/DESIGN.md §9): `{error: {type,
// description}, metadata}`, the type and status from the problem code's own entry (contract
// codes.ts), the headers the problem carries (Retry-After, RateLimit-*), and a description a person
// can act on: the problem's detail and each field's failure.
import type { ServerResponse } from 'node:http'
import { redactSecrets } from '../../accounts/index.js'
import { rfc3339, tawhiriError, type TawhiriError } from '../../contract/index.js'
import type { AloftRequest } from '../context.js'
import type { ProblemCodeName } from '../../contract/index.js'
import type { HttpProblem } from '../problem.js'

/** What to change, for the refusals whose own detail speaks only of an X-API-Key header. */
const HINTS: Partial<Record<ProblemCodeName, string>> = {
  invalid_api_key: 'Check the key after /k/ in the path (or in X-API-Key); keys are shown once, at creation: ask ' +
    'the operator for a new one if it was lost.',
  revoked_api_key: 'Use another key of your account after /k/ in the path (or in X-API-Key).'
}

export function sendTawhiriError (res: ServerResponse, problem: HttpProblem, req: AloftRequest): void {
  const completed = Date.now()
  const started = completed - Number(process.hrtime.bigint() - req.started) / 1e6
  const { status, json } = tawhiriErrorBody(problem, Math.round(started), completed)
  res.statusCode = status
  for (const [name, value] of Object.entries(problem.options.headers ?? {})) res.setHeader(name, String(value))
  res.setHeader('Content-Type', 'application/json')
  res.setHeader('Content-Length', Buffer.byteLength(json))
  res.end(json)
}

/** The status and JSON body of a problem in Tawhiri's shape (times in milliseconds since the epoch). */
export function tawhiriErrorBody (problem: HttpProblem, started: number, completed: number):
{ status: number, json: string } {
  const { type, status } = tawhiriError(problem.code)
  const body: TawhiriError = {
    error: { type, description: describe(problem) },
    metadata: { start_datetime: rfc3339(started), complete_datetime: rfc3339(completed) }
  }
  return { status, json: JSON.stringify(body) }
}

/** The detail, then each failing field as `name: what to change`. */
function describe (problem: HttpProblem): string {
  const { detail, errors = [] } = problem.options
  const fields = errors.map((e) => {
    const name = e.loc.filter((seg) => seg !== 'query' && seg !== 'body').join('.')
    return name === '' ? e.msg : `${name}: ${e.msg}`
  })
  const hint = HINTS[problem.code]
  return redactSecrets([detail ?? problem.message, ...fields, ...(hint !== undefined ? [hint] : [])].join(' '))
}
