// A JSON request body's bytes parsed: UTF-8, nesting depth and object members checked on the raw
// bytes before anything parses, well-formed JSON, finite numbers.
import { isUtf8 } from 'node:buffer'
import { HttpProblem } from '../problem.js'
import { MAX_PROBLEM_ERRORS } from '../../contract/index.js'

/**
 * How deeply arrays and objects may nest. No request of the interface nests past 3; the limit is
 * checked on the raw bytes before anything parses or walks the value, so no later recursion
 * (validation, the non-finite check, rendering a problem) can run out of stack.
 */
export const MAX_JSON_DEPTH = 32

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d

/** Whether the JSON text nests arrays and objects deeper than `limit` (brackets in strings do not count). */
export function nestsDeeperThan (bytes: Uint8Array, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let k = 0; k < bytes.length; k++) {
    const b = bytes[k]
    if (inString) {
      if (b === BACKSLASH) k++ // the escaped byte cannot end the string
      else if (b === QUOTE) inString = false
    } else if (b === QUOTE) {
      inString = true
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}

/**
 * Whether the text has at most `limit` opening brackets, strings included (then it cannot nest
 * deeper): found with the native byte search, so a large flat body (bulk samples: MBs of numbers
 * in a few arrays) skips the byte-by-byte walk.
 */
function opensAtMost (bytes: Buffer, limit: number): boolean {
  let opens = 0
  for (const open of [OPEN_ARRAY, OPEN_OBJECT]) {
    for (let at = bytes.indexOf(open); at >= 0; at = bytes.indexOf(open, at + 1)) {
      if (++opens > limit) return false
    }
  }
  return true
}

const COLON = 0x3a

/**
 * Whether the JSON text has at most `limit` object members (colons outside strings). Found by
 * jumping from quote to quote with the native byte search: a body of numbers has few quotes, and
 * a string's colons (times have two) never count.
 */
export function membersAtMost (bytes: Buffer, limit: number): boolean {
  let members = 0
  let at = 0
  // the next colon at or after `at`, searched for again only once passed (never rescanning the rest)
  let colon = bytes.indexOf(COLON)
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at)
    const end = quote < 0 ? bytes.length : quote
    while (colon >= 0 && colon < end) {
      if (++members > limit) return false
      colon = bytes.indexOf(COLON, colon + 1)
    }
    if (quote < 0 || colon < 0) return true
    // the string's closing quote: the first one not escaped (preceded by an even run of backslashes)
    let from = quote + 1
    for (;;) {
      const close = bytes.indexOf(QUOTE, from)
      if (close < 0) return true // an unterminated string: JSON.parse refuses it
      let slashes = 0
      while (close - slashes - 1 > quote && bytes[close - slashes - 1] === BACKSLASH) slashes++
      if (slashes % 2 === 0) {
        at = close + 1
        break
      }
      from = close + 1
    }
    if (colon < at) colon = bytes.indexOf(COLON, at)
  }
}

/**
 * The parsed body (UTF-8, depth and finite numbers checked), or `undefined` for no body.
 * `maxMembers`: the most object members the body may have in all, checked before parsing (a
 * large body of a million unknown properties takes ~1 s to parse and walk).
 */
export function parseJsonBytes (bytes: Buffer | undefined, maxMembers?: number): unknown {
  if (bytes === undefined) return undefined
  if (!isUtf8(bytes)) throw new HttpProblem('invalid_json', { detail: 'The body is not valid UTF-8.' })
  if (maxMembers !== undefined && !membersAtMost(bytes, maxMembers)) {
    throw new HttpProblem('invalid_request', {
      detail: `The body has more than ${maxMembers} object members (properties); this request has far fewer.`,
      errors: [{ loc: ['body'], msg: `More than ${maxMembers} object members`, type: 'too_many_properties',
        ctx: { limit: maxMembers } }]
    })
  }
  if (!opensAtMost(bytes, MAX_JSON_DEPTH) && nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
    throw new HttpProblem('invalid_request', {
      detail: `The body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep.`,
      errors: [{ loc: ['body'], msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep',
        ctx: { limit: MAX_JSON_DEPTH } }]
    })
  }
  // A leading byte-order mark is allowed and skipped (as a UTF-8 decoder does).
  const text = bytes.toString('utf8', hasBom(bytes) ? 3 : 0)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new HttpProblem('invalid_json', { detail: `The body is not well-formed JSON: ${(err as Error).message}` })
  }
  const nonFinite: Array<Array<string | number>> = []
  if (hasNonFinite(value)) nonFinitePaths(value, ['body'], nonFinite)
  if (nonFinite.length > 0) {
    throw new HttpProblem('invalid_request', {
      detail: 'A number in the body is too large to be represented.',
      errors: nonFinite.map((loc) => ({ loc, msg: 'Input should be a finite number', type: 'finite_number' }))
    })
  }
  return value
}

const hasBom = (b: Buffer): boolean => b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf

/** Whether any number in a parsed JSON value is not finite; allocation-free (every body goes through it). */
function hasNonFinite (value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value)
  if (value === null || typeof value !== 'object') return false
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) if (hasNonFinite(value[k])) return true
    return false
  }
  for (const key in value) if (hasNonFinite((value as Record<string, unknown>)[key])) return true
  return false
}

/**
 * Where the non-finite numbers are, the first MAX_PROBLEM_ERRORS of them (only called when there
 * is one). Recursion is bounded by MAX_JSON_DEPTH.
 */
function nonFinitePaths (value: unknown, path: Array<string | number>, out: Array<Array<string | number>>): void {
  if (out.length >= MAX_PROBLEM_ERRORS) return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push(path)
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length && out.length < MAX_PROBLEM_ERRORS; i++) nonFinitePaths(value[i], [...path, i],
      out)
  } else if (value !== null && typeof value === 'object') {
    for (const k in value) nonFinitePaths((value as Record<string, unknown>)[k], [...path, k], out)
  }
}
