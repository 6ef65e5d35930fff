// Response serialisers compiled from the TypeBox schemas (the idea of fast-json-stringify, in a
// page): the schema fixes the property names and order, so only the values are formatted at run
// time, whatever order the handler built its objects in. Numbers are formatted by `'' + x`, which
// makes a string of each: for number-heavy answers JSON.stringify is faster, and routes whose
// answers are built in schema order use it instead (RouteSpec.success.builtInOrder).
//
// For a value the schema describes, the output is exactly JSON.stringify's (properties in schema
// order; undefined properties left out; non-finite numbers as null). What the compiler does not
// model (records, unknown, unions other than `| null`, objects that allow extra properties) is
// handed to JSON.stringify, so nothing a handler returns can turn into invalid JSON.
import type { TSchema } from '@sinclair/typebox'

export type Serializer = (value: unknown) => string

interface Emitter { code: string[], n: number }

const fresh = (e: Emitter, name: string): string => `${name}${e.n++}`

const typesOf = (schema: TSchema): string[] =>
  Array.isArray(schema.type) ? schema.type as string[] : typeof schema.type === 'string' ? [schema.type] : []

/** `X | null` as TypeBox writes it (anyOf) or as a type list; the non-null part, else undefined. */
function nullable (schema: TSchema): TSchema | undefined {
  const types = typesOf(schema)
  if (types.length === 2 && types.includes('null')) return { ...schema, type: types.find((t) => t !== 'null') }
  const anyOf = schema.anyOf as TSchema[] | undefined
  if (anyOf?.length === 2) {
    const other = anyOf.filter((s) => s.type !== 'null' || s.anyOf !== undefined)
    if (other.length === 1) return other[0]
  }
  return undefined
}

/** Code appending the JSON of expression `x` (a variable name) under `schema` to `s`. */
function emit (e: Emitter, schema: TSchema, x: string): void {
  const inner = nullable(schema)
  if (inner !== undefined) {
    e.code.push(`if (${x} === null) s += 'null'; else {`)
    emit(e, inner, x)
    e.code.push('}')
    return
  }
  const types = typesOf(schema)
  const type = types.length === 1 ? types[0] : undefined
  if (type === 'number' || type === 'integer') {
    e.code.push(`s += typeof ${x} === 'number' ? (Number.isFinite(${x}) ? '' + ${x} : 'null') : JSON.stringify(${x});`)
  } else if (type === 'boolean') {
    e.code.push(`s += ${x} === true ? 'true' : ${x} === false ? 'false' : JSON.stringify(${x});`)
  } else if (type === 'array' && schema.items !== undefined && !Array.isArray(schema.items)) {
    const k = fresh(e, 'k')
    const item = fresh(e, 'item')
    e.code.push(`if (!Array.isArray(${x})) s += JSON.stringify(${x}); else { s += '[';`)
    e.code.push(`for (let ${k} = 0; ${k} < ${x}.length; ${k}++) { if (${k} > 0) s += ','; const ${item} = ${x}[${k}];`)
    // JSON.stringify writes null for undefined array entries
    e.code.push(`if (${item} === undefined) s += 'null'; else {`)
    emit(e, schema.items as TSchema, item)
    e.code.push('} } s += \']\'; }')
  } else if (type === 'object' && schema.properties !== undefined && schema.additionalProperties === false &&
    schema.patternProperties === undefined) {
    const sep = fresh(e, 'sep')
    e.code.push(`if (${x} === null || typeof ${x} !== 'object' || typeof ${x}.toJSON === 'function') s += ` +
      `JSON.stringify(${x}); else { s += '{'; let ${sep} = '';`)
    for (const [name, sub] of Object.entries(schema.properties as Record<string, TSchema>)) {
      const v = fresh(e, 'v')
      e.code.push(`const ${v} = ${x}[${JSON.stringify(name)}]; if (${v} !== undefined && typeof ${v} !== ` +
        `'function') { s += ${sep} + ${JSON.stringify(JSON.stringify(name) + ':')}; ${sep} = ',';`)
      emit(e, sub, v)
      e.code.push('}')
    }
    e.code.push('s += \'}\'; }')
  } else if (type === 'string') {
    // Most strings need no escaping: tested once, then quoted as they are.
    e.code.push(`s += typeof ${x} === 'string' && !NEEDS_ESCAPE.test(${x}) ? '"' + ${x} + '"' : JSON.stringify(${x});`)
  } else {
    // everything not modelled above
    e.code.push(`s += JSON.stringify(${x});`)
  }
}

/** What JSON.stringify would escape in a string: quote, backslash, controls, UTF-16 surrogates. */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/

/** A serialiser for values of `schema`; JSON.stringify's output for any value the schema describes. */
export function compileSerializer (schema: TSchema): Serializer {
  const e: Emitter = { code: [], n: 0 }
  emit(e, schema, 'value')
  // eslint-disable-next-line no-new-func -- generated from our own schemas, as Ajv does
  const make = new Function('NEEDS_ESCAPE',
    `'use strict'; return function serialize (value) { let s = ''; ${e.code.join('\n')} return s; }`)
  return make(NEEDS_ESCAPE) as Serializer
}
