// Ajv validators compiled once from the TypeBox schemas, and Ajv's errors turned into the
// docs/INTERFACE.md §2.8 items (`loc`, `msg`, `type`, `input`, `ctx`).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import equalModule from 'ajv/dist/runtime/equal.js'
import addFormatsModule from 'ajv-formats'
import type { Static, TSchema } from '@sinclair/typebox'
import { SCHEMAS, type ValidationErrorItem } from './schemas.js'
import { MAX_PROBLEM_ERRORS, RFC3339_PATTERN } from './limits.js'
import { daysInMonth } from './calendar.js'

// ajv-formats is CommonJS: under NodeNext its types describe the default import as the module
// object, while at run time it is the plugin function itself (which also carries `.default`).
const addFormats = addFormatsModule.default
// the same for Ajv's runtime equality (fast-deep-equal): the default import is the CommonJS exports
const deepEqual = (equalModule as unknown as { default: (a: unknown, b: unknown) => boolean }).default

const RFC3339 = new RegExp(RFC3339_PATTERN)

const ZERO = 0x30

/** The digit at `at` (0–9), or −1. */
function digitAt (value: string, at: number): number {
  const d = value.charCodeAt(at) - ZERO
  return d >= 0 && d <= 9 ? d : -1
}

/** Two digits at `at` as a number, or −1. */
function twoDigits (value: string, at: number): number {
  const a = digitAt(value, at)
  const b = digitAt(value, at + 1)
  return a < 0 || b < 0 ? -1 : a * 10 + b
}

/**
 * RFC 3339 date-time as docs/DESIGN.md §3 accepts it: a real calendar date, no leap second, an offset.
 * `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (nearly every time a bulk samples body sends, 100 000 at
 * most) is read character by character, ~6× faster than the pattern and its slices; every other
 * shape by `isRfc3339DateTimeByPattern`, which gives any string the same verdict (test/contract).
 */
export function isRfc3339DateTime (value: string): boolean {
  const length = value.length
  if (length < 20 || value.charCodeAt(length - 1) !== 0x5a) return isRfc3339DateTimeByPattern(value)
  // ending in Z, the pattern's zone is Z: between the seconds and it, nothing or `.` and digits
  if (length > 20) {
    if (length === 21 || value.charCodeAt(19) !== 0x2e) return false
    for (let k = 20; k < length - 1; k++) if (digitAt(value, k) < 0) return false
  }
  if (value.charCodeAt(4) !== 0x2d || value.charCodeAt(7) !== 0x2d || value.charCodeAt(10) !== 0x54 ||
    value.charCodeAt(13) !== 0x3a || value.charCodeAt(16) !== 0x3a) return false
  const century = twoDigits(value, 0)
  const yy = twoDigits(value, 2)
  const month = twoDigits(value, 5)
  const day = twoDigits(value, 8)
  const hour = twoDigits(value, 11)
  const minute = twoDigits(value, 14)
  const second = twoDigits(value, 17)
  if (century < 0 || yy < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
    minute < 0 || minute > 59 || second < 0 || second > 59) return false
  return day <= daysInMonth(century * 100 + yy, month)
}

/** The same check for any string, by the pattern. */
export function isRfc3339DateTimeByPattern (value: string): boolean {
  if (!RFC3339.test(value)) return false
  const year = Number(value.slice(0, 4))
  const month = Number(value.slice(5, 7))
  const day = Number(value.slice(8, 10))
  const hour = Number(value.slice(11, 13))
  const minute = Number(value.slice(14, 16))
  const second = Number(value.slice(17, 19))
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false
  if (hour > 23 || minute > 59 || second > 59) return false
  if (!value.endsWith('Z')) {
    const offset = value.slice(-5)
    if (Number(offset.slice(0, 2)) > 23 || Number(offset.slice(3, 5)) > 59) return false
  }
  return true
}


/**
 * JSON Schema's uniqueItems, answered as Ajv answers it (the first repeat found scanning down from
 * the end, its two indices as `i` < `j`). Ajv's own code keys an object by each number's text for
 * arrays of numbers: every height formatted and a dictionary built, 9 of the 10 µs a profile body's
 * validation took. Scalars compare with === (JSON Schema equality for numbers and strings), by
 * scanning when short and through a Map when long; anything else with Ajv's deep equality.
 */
function uniqueItems (this: unknown, unique: boolean, data: unknown[]): boolean {
  if (!unique || data.length < 2) return true
  const repeat = (i: number, j: number): false => {
    uniqueItems.errors = [{ keyword: 'uniqueItems', params: { i, j },
      message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` }]
    return false
  }
  const scalars = data.every((v) => v === null || typeof v !== 'object')
  if (scalars && data.length > 32) {
    const later = new Map<unknown, number>()
    for (let i = data.length - 1; i >= 0; i--) {
      const j = later.get(data[i])
      if (j !== undefined) return repeat(i, j)
      later.set(data[i], i)
    }
    return true
  }
  for (let i = data.length - 2; i >= 0; i--) {
    for (let j = i + 1; j < data.length; j++) {
      if (scalars ? data[i] === data[j] : deepEqual(data[i], data[j])) return repeat(i, j)
    }
  }
  return true
}
uniqueItems.errors = undefined as Array<Partial<ErrorObject>> | undefined

export const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true })
addFormats(ajv)
ajv.removeKeyword('uniqueItems')
ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems })
// Replaces ajv-formats' date-time, which accepts leap seconds and lower-case separators.
ajv.addFormat('date-time', { type: 'string', validate: isRfc3339DateTime })
// A record embedded in another (e.g. AtmosphereLevel in AtmosphereResponse) is registered with
// its parent, by its $id; adding it again would be a duplicate.
for (const schema of Object.values(SCHEMAS)) {
  if (ajv.getSchema(schema.$id as string) === undefined) ajv.addSchema(schema)
}

const compiled = new Map<TSchema, ValidateFunction>()

/** The compiled validator of a schema (compiled on first use, then kept). */
export function validatorFor<T extends TSchema> (schema: T): ValidateFunction<Static<T>> {
  let fn = compiled.get(schema)
  if (fn === undefined) {
    fn = schema.$id !== undefined ? ajv.getSchema(schema.$id) : undefined
    fn ??= ajv.compile(schema)
    compiled.set(schema, fn)
  }
  return fn as ValidateFunction<Static<T>>
}

/**
 * A failure lists at most MAX_PROBLEM_ERRORS items (a body can fail a hundred thousand times, and
 * each item costs work to build); `total` counts every failure found.
 */
export type Validation<T> = { ok: true, value: T } | { ok: false, errors: ValidationErrorItem[], total: number }

/** Validates `value` found at `root` (e.g. 'body'), with 2.8 items on failure. */
export function validate<T extends TSchema> (schema: T, value: unknown, root: string = 'body'): Validation<Static<T>> {
  const fn = validatorFor(schema)
  if (fn(value)) return { ok: true, value }
  const raw = fn.errors ?? []
  const errors = toErrorItems(raw, value, root)
  // below the cap every failure was converted (repeats merged); above it, Ajv's count
  return { ok: false, errors, total: errors.length < MAX_PROBLEM_ERRORS ? errors.length : raw.length }
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

/** The first MAX_PROBLEM_ERRORS distinct items (the rest are never built). */
function toErrorItems (errors: ErrorObject[], body: unknown, root: string): ValidationErrorItem[] {
  const items: ValidationErrorItem[] = []
  const seen = new Set<string>()
  for (const e of errors) {
    if (items.length >= MAX_PROBLEM_ERRORS) break
    const path = pointerSegments(e.instancePath)
    const input = valueAt(body, path)
    const p = e.params as Record<string, unknown>
    /** An item at the failing value's own location. */
    const here = (msg: string, type: string, ctx?: Record<string, unknown>): ValidationErrorItem =>
      ({ loc: [root, ...path], msg, type, input, ctx })
    let item: ValidationErrorItem
    switch (e.keyword) {
      case 'required':
        item = { loc: [root, ...path, String(p.missingProperty)], msg: 'Field required', type: 'missing' }
        break
      case 'additionalProperties': {
        const name = String(p.additionalProperty)
        item = {
          loc: [root, ...path, name],
          msg: 'Unknown field: extra properties are not permitted',
          type: 'extra_forbidden',
          input: valueAt(input, [name])
        }
        break
      }
      case 'uniqueItems': {
        const [first, dup] = [Number(p.j), Number(p.i)].sort((a, b) => a - b)
        item = {
          loc: [root, ...path, dup],
          msg: `Items must be unique: item ${dup} repeats item ${first}`,
          type: 'unique_items',
          input: valueAt(input, [dup]),
          ctx: { duplicate_of: first }
        }
        break
      }
      case 'type': {
        const t = Array.isArray(p.type) ? (p.type as string[]).join(' or ') : String(p.type)
        item = here(`Input should be of type ${t}`, TYPE_NAMES[t] ?? 'type_error', { expected: t })
        break
      }
      case 'enum': {
        const values = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')
        item = here(`Input should be one of: ${values}`, 'enum', { expected: p.allowedValues })
        break
      }
      case 'const':
        item = here(`Input should be ${JSON.stringify(p.allowedValue)}`, 'literal_error', { expected: p.allowedValue })
        break
      case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum': {
        const [type, words] = BOUND_NAMES[e.keyword]
        item = here(`Input should be ${words} ${String(p.limit)}`, type, { limit: p.limit })
        break
      }
      case 'minItems': case 'maxItems': case 'minLength': case 'maxLength': {
        const short = e.keyword.startsWith('min')
        const unit = e.keyword.endsWith('Items') ? 'items' : 'characters'
        item = here(`Input should have at ${short ? 'least' : 'most'} ${String(p.limit)} ${unit}`,
          short ? 'too_short' : 'too_long', { limit: p.limit })
        break
      }
      case 'format':
        item = p.format === 'date-time'
          ? here(DATE_TIME_MESSAGE, 'datetime_format', { format: 'date-time' })
          : here(`Input should match format ${String(p.format)}`, 'format', { format: p.format })
        break
      case 'pattern':
        item = here('Input contains characters that are not allowed (control characters U+0000–U+001F, U+007F)',
          'string_pattern_mismatch', { pattern: p.pattern })
        break
      default:
        item = here(e.message ?? 'Invalid value', e.keyword, p)
    }
    const key = JSON.stringify([item.loc, item.type])
    if (!seen.has(key)) {
      seen.add(key)
      items.push(item)
    }
  }
  return items
}
