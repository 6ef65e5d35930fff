// A JSON body (as parse.ts parsed it) checked against its route's schema: the value the handler
// receives, or the 400 listing what failed.
import { type RouteSpec, validate } from '../../contract/index.js'
import { HttpProblem } from '../problem.js'

/** The validated JSON body of a route that takes one. */
export function checkBody (raw: unknown, spec: NonNullable<RouteSpec['body']>): unknown {
  if (raw === undefined) {
    throw new HttpProblem('invalid_request', {
      detail: 'A JSON body is required.', errors: [{ loc: ['body'], msg: 'Field required', type: 'missing' }]
    })
  }
  const checked = validate(spec.schema, raw)
  if (!checked.ok) {
    throw new HttpProblem('invalid_request', {
      detail: `The body does not match ${String(spec.schema.$id)}: ${checked.total} error(s).`,
      errors: checked.errors
    })
  }
  return checked.value
}
