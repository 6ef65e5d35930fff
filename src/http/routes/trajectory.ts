// POST and GET /v1/atmosphere/trajectory (docs/DESIGN.md §7). The app has checked the key and
// taken one rate token (and, for POST, validated the body); here: GET's query read as the same
// fields, one more token per 100 ensemble members, then the predictor.
import type { ServerResponse } from 'node:http'
import {
  isDecimal, TRAJECTORY_LIMITS, TrajectoryRequest, type TrajectoryResponse, validate
} from '../../contract/index.js'
import { FlightInputError, type TrajectoryService } from '../../trajectory/index.js'
import { HttpProblem, noDataPath } from '../problem.js'
import { dataProblem } from '../data-problem.js'
import { takeTokens } from '../rate.js'
import { goneSignal } from '../client-gone.js'
import type { AloftRequest, AppDeps, Handler, Handlers } from '../context.js'

const NUMERIC = new Set(['launch_latitude', 'launch_longitude', 'launch_altitude', 'ascent_rate', 'burst_altitude',
  'descent_rate', 'float_altitude', 'version', 'members', 'ascent_rate_sd', 'burst_altitude_sd', 'descent_rate_sd',
  'seed'])

const FLAGS = new Set(['member_trajectories', 'surface_layer'])

/** A query value as JSON would carry it: numbers for the numeric fields, booleans for flags. */
function typed (name: string, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw
  if (NUMERIC.has(name)) return isDecimal(raw) ? Number(raw) : raw
  if (FLAGS.has(name)) return raw === 'true' ? true : raw === 'false' ? false : raw
  return raw
}

/**
 * GET's query as the POST body: the same names, `ensemble.members` … for the ensemble. Objects
 * without a prototype, so a `__proto__` parameter is a property like any other (and refused as
 * unknown) rather than a prototype silently set.
 */
function queryRequest (query: Record<string, unknown>): unknown {
  const body: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [name, raw] of Object.entries(query)) {
    if (name.startsWith('ensemble.')) {
      if (Object.hasOwn(query, 'ensemble')) continue // refused below: the two ways to give it cannot mix
      const ensemble = (body.ensemble ??= Object.create(null)) as Record<string, unknown>
      const field = name.slice('ensemble.'.length)
      ensemble[field] = typed(field, raw)
    } else {
      body[name] = typed(name, raw)
    }
  }
  return body
}

function readQuery (req: AloftRequest): TrajectoryRequest {
  const query = (req.query ?? {}) as Record<string, unknown>
  if (Object.hasOwn(query, 'ensemble')) {
    throw new HttpProblem('invalid_request', {
      detail: 'The query does not describe a flight: 1 error(s).',
      errors: [{ loc: ['query', 'ensemble'], msg: 'Give the ensemble as ensemble.members, ensemble.ascent_rate_sd … ' +
        'parameters', type: 'value_error', input: query.ensemble }]
    })
  }
  const checked = validate(TrajectoryRequest, queryRequest(query), 'query')
  if (!checked.ok) {
    throw new HttpProblem('invalid_request', {
      detail: `The query does not describe a flight: ${checked.total} error(s).`, errors: checked.errors
    })
  }
  return checked.value
}

/**
 * Checks, prices (one token per started block of steps beyond the one admission took) and flies a
 * flight; a FlightInputError is the 400 naming its fields under `root`.
 */
export async function predictFlight (
  deps: AppDeps, request: TrajectoryRequest, root: 'body' | 'query', accountId: string, res: ServerResponse
): Promise<TrajectoryResponse> {
  const service: TrajectoryService | undefined = deps.trajectories
  if (service === undefined) throw noDataPath('trajectories')
  try {
    const flight = await service.prepare(request, accountId)
    const steps = flight.cost.steps
    await takeTokens(deps, accountId, Math.ceil(steps / TRAJECTORY_LIMITS.stepsPerToken),
      { what: `A flight of up to ${steps} steps of 60 s`,
        rule: `one per started ${TRAJECTORY_LIMITS.stepsPerToken} steps, all members together` }, res)
    return await flight.fly(goneSignal(res))
  } catch (err) {
    if (err instanceof FlightInputError) {
      throw new HttpProblem('invalid_request', {
        detail: `The request does not describe a flight: ${err.message}.`,
        errors: err.errors.map((e) => ({ ...e, loc: [root, ...e.loc] }))
      })
    }
    throw dataProblem(err)
  }
}

export function trajectoryHandlers (deps: AppDeps): Handlers {
  return {
    predict_trajectory: (async ({ body, accountId, res }) =>
      ({ body: await predictFlight(deps, body, 'body', accountId, res) })) satisfies Handler<TrajectoryRequest>,
    predict_trajectory_get: (async ({ req, accountId, res }) =>
      ({ body: await predictFlight(deps, readQuery(req), 'query', accountId, res) })) satisfies Handler
  }
}
