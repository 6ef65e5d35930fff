// Ajv validators compiled once from the TypeBox schemas, with aloft's own `date-time` format
// (date-time.ts) and `uniqueItems` keyword (unique-items.ts); a failure as docs/INTERFACE.md
// §2.8 items (error-items.ts).
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { Static, TSchema } from '@sinclair/typebox'
import { SCHEMAS } from './schemas.js'
import type { ValidationErrorItem } from './problem.js'
import { MAX_PROBLEM_ERRORS } from './limits.js'
import { isRfc3339DateTime } from './date-time.js'
import { uniqueItems } from './unique-items.js'
import { toErrorItems } from './error-items.js'

// ajv-formats is CommonJS: under NodeNext its types describe the default import as the module
// object, while at run time it is the plugin function itself (which also carries `.default`).
const addFormats = addFormatsModule.default

/**
 * The one Ajv, made on the first validation: a worker thread loads this room for its constants and
 * never validates, and a process pays for the meta-schema when it first needs it, not at start.
 */
let made: Ajv | undefined
function ajv (): Ajv {
  if (made !== undefined) return made
  const a = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true })
  addFormats(a)
  a.removeKeyword('uniqueItems')
  a.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems })
  // Replaces ajv-formats' date-time, which accepts leap seconds and lower-case separators.
  a.addFormat('date-time', { type: 'string', validate: isRfc3339DateTime })
  // A record embedded in another (e.g. AtmosphereLevel in AtmosphereResponse) is registered with its
  // parent, by its $id; adding it again would be a duplicate. Asked without getSchema, which would
  // compile every schema at once (a quarter of a second) rather than each on first use.
  for (const schema of Object.values(SCHEMAS)) {
    const id = schema.$id as string
    if (a.schemas[id] === undefined && a.refs[id] === undefined) a.addSchema(schema)
  }
  made = a
  return a
}

const compiled = new Map<TSchema, ValidateFunction>()

/** The compiled validator of a schema (compiled on first use, then kept). */
export function validatorFor<T extends TSchema> (schema: T): ValidateFunction<Static<T>> {
  let fn = compiled.get(schema)
  if (fn === undefined) {
    fn = schema.$id !== undefined ? ajv().getSchema(schema.$id) : undefined
    fn ??= ajv().compile(schema)
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
