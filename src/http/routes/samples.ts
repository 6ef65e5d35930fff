// POST /v1/atmosphere/samples (docs/DESIGN.md §6). The app has checked the key and taken one
// rate token; here: the body in either encoding, the rest of the rate cost (one token per started
// 10 000 points), then plan → cost → load → compute, answered as JSON or streamed as Arrow.
import type { ServerResponse } from 'node:http'
import { ARROW_STREAM, SamplesRequest, LIMITS, validate, type ValidationErrorItem } from '../../contract/index.js'
import {
  loadArrow, type ArrowQuery, pointsFromJson, samplesBodyBounds, type JsonPart,
  type PointsOrErrors, TooManyUnitsError, type SamplesEngine
} from '../../samples/index.js'
import { HttpProblem, noDataPath } from '../problem.js'
import { BodyBuffers, parseJsonBytes, readJsonBytes, readLimited } from '../body/index.js'
import { dataProblem } from '../data-problem.js'
import { takeTokens } from '../rate.js'
import type { AloftRequest, AppDeps, Handler, Handlers } from '../context.js'

/** Object members a samples body may have: its nine properties, with room for a few unknown ones to be named. */
const MAX_SAMPLES_MEMBERS = 64

function mediaType (header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase()
}

/** Arrow when the client asks for it before (or instead of) JSON. */
function wantsArrow (accept: string | undefined): boolean {
  if (accept === undefined) return false
  const types = accept.split(',').map((t) => mediaType(t))
  const arrow = types.indexOf(ARROW_STREAM)
  const json = types.findIndex((t) => t === 'application/json' || t === 'application/*' || t === '*/*')
  return arrow >= 0 && (json < 0 || arrow < json)
}

function invalid (errors: ValidationErrorItem[], what: string, total = errors.length): HttpProblem {
  return new HttpProblem('invalid_request', { detail: `The ${what} does not describe valid samples: ` +
    `${total} error(s).`, errors })
}

/** A samples request's own refusals and the data path's, as problems. */
function samplesProblem (err: unknown): unknown {
  if (err instanceof TooManyUnitsError) {
    return new HttpProblem('invalid_request', { detail: `The points need ${err.needed} distinct source units; ` +
      `at most ${err.limit} are allowed per request (ALOFT_SAMPLES_MAX_UNITS). Split the request.`,
    errors: [{ loc: ['body'], msg: err.message, type: 'too_many_units',
      ctx: { needed: err.needed, limit: err.limit } }] })
  }
  return dataProblem(err)
}

/** Large bodies are read into reused memory (body/buffers.ts). */
const bodies = new BodyBuffers()

/**
 * The points, and `release` to call once nothing reads the body any more (an Arrow table's
 * float64 columns are read in place: until planned).
 */
async function readPoints (
  req: AloftRequest, deps: AppDeps
): Promise<PointsOrErrors & { ok: true, release: () => void }> {
  const { config } = deps
  const type = mediaType(req.headers['content-type'])
  if (type === ARROW_STREAM) {
    const bytes = await readLimited(req, config.samplesMaxBodyBytes, bodies)
    const parsed = (await loadArrow()).pointsFromArrow(bytes, (req.query ?? {}) as ArrowQuery, config.samplesMaxPoints)
    if (!parsed.ok) {
      bodies.give(bytes)
      throw invalid(parsed.errors, 'Arrow table or its query options')
    }
    return { ...parsed, release: () => bodies.give(bytes) }
  }
  if (req.headers['content-type'] !== undefined && type !== 'application/json') {
    throw new HttpProblem('unsupported_media_type', { detail: `Content-Type ${JSON.stringify(type.slice(0, 100))} ` +
      `is not accepted; send application/json or ${ARROW_STREAM}.` })
  }
  const bytes = await readJsonBytes(req, config.samplesMaxBodyBytes, bodies)
  let raw: unknown
  try {
    raw = parseJsonBytes(bytes, MAX_SAMPLES_MEMBERS)
  } finally {
    // parsed (or refused): the value holds nothing of the bytes
    if (bytes !== undefined) bodies.give(bytes)
  }
  if (raw === undefined) {
    throw new HttpProblem('invalid_request', {
      detail: 'A body is required.', errors: [{ loc: ['body'], msg: 'Field required', type: 'missing' }]
    })
  }
  // the work of validating is bounded first (array lengths, unknown properties), then the schema
  const bounds = samplesBodyBounds(raw, config.samplesMaxPoints)
  if (bounds !== null) throw invalid(bounds.errors, 'body', bounds.total)
  const checked = validate(SamplesRequest, raw)
  if (!checked.ok) throw invalid(checked.errors, 'body', checked.total)
  const parsed = pointsFromJson(checked.value, config.samplesMaxPoints)
  if (!parsed.ok) throw invalid(parsed.errors, 'body')
  return { ...parsed, release: () => {} }
}

/** Until the response drains or closes; the listener not fired is removed (a large answer waits many times). */
async function drained (res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** Until the response has handed its last byte to the socket, or closed. */
async function finished (res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return
  await new Promise<void>((resolve) => { res.once('finish', resolve); res.once('close', resolve) })
}

/** A JSON answer written piece by piece (never joined: it can be tens of MB), with its length. */
async function writeJson (res: ServerResponse, parts: JsonPart[]): Promise<void> {
  let length = 0
  for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.byteLength
  res.statusCode = 200
  res.setHeader('Content-Type', 'application/json')
  res.setHeader('Content-Length', length)
  for (const part of parts) {
    if (res.destroyed) return
    if (!res.write(part)) await drained(res)
  }
  res.end()
}

export function samplesHandlers (deps: AppDeps): Handlers {
  return {
    get_atmospheric_samples: (async ({ req, res, accountId }) => {
      const engine: SamplesEngine | undefined = deps.samples
      if (engine === undefined) throw noDataPath('samples')
      const arrow = wantsArrow(req.headers.accept)
      const { points, options, release } = await readPoints(req, deps)
      let plan
      try {
        await takeTokens(deps, accountId, Math.ceil(points.n / LIMITS.samplesPointsPerToken),
          { what: `${points.n} points`, rule: `one per started ${LIMITS.samplesPointsPerToken}` }, res)
        plan = await engine.plan(points, options, accountId)
      } catch (err) {
        throw samplesProblem(err)
      } finally {
        // the plan holds copies of what it reads of the points: the body may be reused
        release()
      }
      // the plan's arrays (a large request's shared memory) go back once the answer has left, or failed
      try {
        const loaded = await engine.load(plan, accountId)
        if (!arrow) {
          await writeJson(res, await engine.json(await engine.compute(loaded, options), loaded))
        } else {
          // the headers, then one record batch per slice as it is computed
          const writer = new (await loadArrow()).ArrowSamplesWriter()
          res.statusCode = 200
          res.setHeader('Content-Type', ARROW_STREAM)
          writer.stream.pipe(res)
          await engine.compute(loaded, options, (result, start, end) => writer.writeSlice(result, start, end))
          writer.end()
        }
        // the answer's number columns are views of the request's arrays: reused once written
        await finished(res)
      } catch (err) {
        // a saturated pool before anything was sent is a 503; after, the connection is cut
        throw samplesProblem(err)
      } finally {
        engine.release({ plan })
      }
      return { streamed: true, body: null }
    }) satisfies Handler
  }
}
