// Ajv's errors turned into the docs/INTERFACE.md §2.8 items (`loc`, `msg`, `type`, `input`, `ctx`),
// in the words and types callers of pydantic-style APIs know.
import type { ErrorObject } from 'ajv'
import { MAX_PROBLEM_ERRORS } from './limits.js'
import type { ValidationErrorItem } from './problem.js'

/** The first MAX_PROBLEM_ERRORS distinct items (the rest are never built). */
export function toErrorItems (errors: ErrorObject[], body: unknown, root: string): ValidationErrorItem[] {
  const items: ValidationErrorItem[] = []
  const seen = new Set<string>()
  for (const e of errors) {
    if (items.length >= MAX_PROBLEM_ERRORS) break
    const item = itemOf(e, body, root)
    const key = JSON.stringify([item.loc, item.type])
    if (!seen.has(key)) {
      seen.add(key)
      items.push(item)
    }
  }
  return items
}

/** One error's item: at a child of the failing value (a missing, unknown or repeated one), or at the value. */
function itemOf (e: ErrorObject, body: unknown, root: string): ValidationErrorItem {
  const path = pointerSegments(e.instancePath)
  const input = valueAt(body, path)
  const p = e.params as Record<string, unknown>
  switch (e.keyword) {
    case 'required':
      return { loc: [root, ...path, String(p.missingProperty)], msg: 'Field required', type: 'missing' }
    case 'additionalProperties': {
      const name = String(p.additionalProperty)
      return {
        loc: [root, ...path, name],
        msg: 'Unknown field: extra properties are not permitted',
        type: 'extra_forbidden',
        input: valueAt(input, [name])
      }
    }
    case 'uniqueItems': {
      const [first, dup] = [Number(p.j), Number(p.i)].sort((a, b) => a - b)
      return {
        loc: [root, ...path, dup],
        msg: `Items must be unique: item ${dup} repeats item ${first}`,
        type: 'unique_items',
        input: valueAt(input, [dup]),
        ctx: { duplicate_of: first }
      }
    }
    default: {
      const { msg, type, ctx } = valueFailure(e, p)
      return { loc: [root, ...path], msg, type, input, ctx }
    }
  }
}

interface ValueFailure { msg: string, type: string, ctx: Record<string, unknown> }

/** What is wrong with the failing value itself (its type, bounds, length, format, …). */
function valueFailure (e: ErrorObject, p: Record<string, unknown>): ValueFailure {
  switch (e.keyword) {
    case 'type': {
      const t = Array.isArray(p.type) ? (p.type as string[]).join(' or ') : String(p.type)
      return { msg: `Input should be of type ${t}`, type: TYPE_NAMES[t] ?? 'type_error', ctx: { expected: t } }
    }
    case 'enum': {
      const values = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')
      return { msg: `Input should be one of: ${values}`, type: 'enum', ctx: { expected: p.allowedValues } }
    }
    case 'const':
      return { msg: `Input should be ${JSON.stringify(p.allowedValue)}`, type: 'literal_error',
        ctx: { expected: p.allowedValue } }
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum': {
      const [type, words] = BOUND_NAMES[e.keyword]
      return { msg: `Input should be ${words} ${String(p.limit)}`, type, ctx: { limit: p.limit } }
    }
    case 'minItems': case 'maxItems': case 'minLength': case 'maxLength': {
      const short = e.keyword.startsWith('min')
      const unit = e.keyword.endsWith('Items') ? 'items' : 'characters'
      return { msg: `Input should have at ${short ? 'least' : 'most'} ${String(p.limit)} ${unit}`,
        type: short ? 'too_short' : 'too_long', ctx: { limit: p.limit } }
    }
    case 'format':
      return p.format === 'date-time'
        ? { msg: DATE_TIME_MESSAGE, type: 'datetime_format', ctx: { format: 'date-time' } }
        : { msg: `Input should match format ${String(p.format)}`, type: 'format', ctx: { format: p.format } }
    case 'pattern':
      return { msg: 'Input contains characters that are not allowed (control characters U+0000–U+001F, U+007F)',
        type: 'string_pattern_mismatch', ctx: { pattern: p.pattern } }
    default:
      return { msg: e.message ?? 'Invalid value', type: e.keyword, ctx: p }
  }
}

function pointerSegments (pointer: string): Array<string | number> {
  if (pointer === '') return []
  return pointer.slice(1).split('/').map((raw) => {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    return /^(0|[1-9]\d*)$/.test(seg) ? Number(seg) : seg
  })
}

function valueAt (root: unknown, path: Array<string | number>): unknown {
  let cur: unknown = root
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string | number, unknown>)[seg]
  }
  return cur
}

const TYPE_NAMES: Record<string, string> = {
  number: 'number_type', integer: 'int_type', string: 'string_type', boolean: 'bool_type',
  array: 'list_type', object: 'dict_type', null: 'none_type'
}

const BOUND_NAMES = {
  minimum: ['greater_than_equal', 'greater than or equal to'],
  maximum: ['less_than_equal', 'less than or equal to'],
  exclusiveMinimum: ['greater_than', 'greater than'],
  exclusiveMaximum: ['less_than', 'less than']
} as const

const DATE_TIME_MESSAGE = 'Input should be an RFC 3339 date-time with seconds and a timezone (Z or ±HH:MM), ' +
  'e.g. 2026-01-01T12:00:00Z; leap seconds are not accepted'
