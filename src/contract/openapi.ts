// /openapi.json (OpenAPI 3.1) generated from the route table and the TypeBox schemas.
import type { TSchema } from '@sinclair/typebox'
import { SCHEMAS } from './schemas.js'
import { PROBLEM_CODES, type ProblemCodeName, tawhiriError } from './codes.js'
import { INTERFACE_VERSION } from '../atmosphere/index.js'
import { allowValue, type RouteSpec } from './routes.js'

const byObject = new Map<TSchema, string>(Object.entries(SCHEMAS).map(([name, schema]) => [schema, name]))

/** Plain JSON of a schema, with named sub-schemas turned into component references. */
function toJson (schema: unknown, top = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toJson(s, false))
  if (schema === null || typeof schema !== 'object') return schema
  const name = byObject.get(schema as TSchema)
  if (name !== undefined && !top) return { $ref: `#/components/schemas/${name}` }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$id') continue
    out[k] = toJson(v, false)
  }
  return out
}

function ref (schema: TSchema): unknown {
  const name = byObject.get(schema)
  return name !== undefined ? { $ref: `#/components/schemas/${name}` } : toJson(schema)
}

const PROBLEM_MEDIA = 'application/problem+json'

/** The 405 every operation's path answers to the methods it does not take, as the router does. */
function methodNotAllowed (allow: string): unknown {
  return {
    description: `\`method_not_allowed\`: ${PROBLEM_CODES.method_not_allowed.title} (this path takes ${allow})`,
    headers: { Allow: { description: 'the methods this path takes', required: true,
      schema: { type: 'string', enum: [allow] } } },
    content: { [PROBLEM_MEDIA]: { schema: { $ref: '#/components/schemas/Problem' } } }
  }
}

export function buildOpenApi (routes: readonly RouteSpec[]): object {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    if (!route.openapi) continue
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}')
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operation(route, routes) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'aloft — atmospheric profiles from NOAA GFS',
      version: INTERFACE_VERSION,
      description: 'Wind, temperature, pressure, humidity and air density at chosen heights above a point, from ' +
        'NOAA GFS 0.25° pressure-level data, with full provenance. Errors are RFC 9457 problem documents ' +
          '(`application/problem+json`).'
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, toJson(schema)])),
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key',
          description: 'A secret API key; never embed it in a browser application.' },
        AdminBearer: { type: 'http', scheme: 'bearer', description: 'The operator token (ALOFT_ADMIN_TOKEN).' }
      }
    }
  }
}

const BINARY = { schema: { type: 'string', format: 'binary' } }

/** One route as an OpenAPI operation (`routes`: every route served, for its path's 405). */
function operation (route: RouteSpec, routes: readonly RouteSpec[]): Record<string, unknown> {
  const params: object[] = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
    name: m[1], in: 'path', required: true, schema: { type: 'string' }
  }))
  if (route.query !== undefined) params.push(...queryParameters(route.query))
  const body = route.body
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body !== undefined ? { requestBody: { required: true,
      content: Object.fromEntries((body.mediaTypes ?? ['application/json']).map((m) =>
        [m, m === 'application/json' ? { schema: ref(body.schema) } : BINARY])) } } : {}),
    responses: responses(route, routes),
    security: route.auth === 'api_key' ? [{ ApiKeyAuth: [] }] : route.auth === 'admin' ? [{ AdminBearer: [] }] : []
  }
}

/** The success answer, then one entry per status the route's problems (and its own other answer) have, and 405. */
function responses (route: RouteSpec, routes: readonly RouteSpec[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const s = route.success
  out[String(s.status)] = {
    description: route.summary,
    content: {
      ...(s.schema !== undefined
        ? { 'application/json': { schema: ref(s.schema) } }
        : { [s.mediaType ?? 'text/plain']: { schema: { type: 'string' } } }),
      ...Object.fromEntries((s.alternatives ?? []).map((m) => [m, BINARY]))
    }
  }
  const other = route.otherAnswer
  for (const [status, codes] of problemStatuses(route)) {
    if (status === 405) {
      const methods = routes.filter((r) => r.path === route.path).map((r) => r.method)
      out['405'] = methodNotAllowed(allowValue(methods))
      continue
    }
    out[String(status)] = route.dialect === 'tawhiri'
      ? tawhiriResponse(codes)
      : statusResponse(codes, other?.status === status ? other : undefined)
  }
  return out
}

/** A refusal on a Tawhiri path: Tawhiri's error shape, its types named (codes.ts `tawhiri`). */
function tawhiriResponse (codes: ProblemCodeName[]): unknown {
  const retry = codes.some((c) => 'retryAfter' in PROBLEM_CODES[c])
  return {
    description: [...new Set(codes.map((c) => `\`${tawhiriError(c).type}\``))].join(', ') + ' (Tawhiri\'s error shape)',
    ...(retry ? { headers: { 'Retry-After': { description: 'seconds to wait before retrying',
      schema: { type: 'integer', minimum: 1 } } } } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/TawhiriError' } } }
  }
}

/** The route's problem codes by status (internal_error included), its other answer's status and 405, in order. */
function problemStatuses (route: RouteSpec): Array<[number, ProblemCodeName[]]> {
  const byStatus = new Map<number, ProblemCodeName[]>()
  for (const code of [...route.problems, 'internal_error' as const]) {
    const status = route.dialect === 'tawhiri' ? tawhiriError(code).status : PROBLEM_CODES[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const other = route.otherAnswer
  if (other !== undefined && !byStatus.has(other.status)) byStatus.set(other.status, [])
  byStatus.set(405, [])
  return [...byStatus].sort((a, b) => a[0] - b[0])
}

/** One non-success status: its problem codes, and the route's own answer when it has one there. */
function statusResponse (codes: ProblemCodeName[], own: RouteSpec['otherAnswer']): unknown {
  const retry = codes.some((c) => 'retryAfter' in PROBLEM_CODES[c]) || own !== undefined
  return {
    description: [...(own !== undefined ? [own.description] : []),
      ...codes.map((c) => `\`${c}\`: ${PROBLEM_CODES[c].title}`)].join('; '),
    ...(retry ? { headers: { 'Retry-After': { description: 'seconds to wait before retrying',
      schema: { type: 'integer', minimum: 1 } } } } : {}),
    content: {
      ...(own !== undefined ? { 'application/json': { schema: ref(own.schema) } } : {}),
      ...(codes.length > 0 ? { [PROBLEM_MEDIA]: { schema: { $ref: '#/components/schemas/Problem' } } } : {})
    }
  }
}

/** A query schema's fields as parameters; an object field's own fields as `field.name`. */
function queryParameters (schema: TSchema, prefix = '', required: readonly string[] = []): object[] {
  const out: object[] = []
  const props = (schema.properties ?? {}) as Record<string, TSchema>
  const need = new Set<string>(prefix === '' ? (schema.required as string[] | undefined) ?? [] : required)
  for (const [name, field] of Object.entries(props)) {
    if (field.type === 'object') {
      out.push(...queryParameters(field, `${prefix}${name}.`, (field.required as string[] | undefined) ?? []))
      continue
    }
    const { description, ...rest } = toJson(field) as { description?: string }
    out.push({ name: `${prefix}${name}`, in: 'query', required: need.has(name),
      ...(description !== undefined ? { description } : {}), schema: rest })
  }
  return out
}
