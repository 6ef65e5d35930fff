// A 400's `errors[]` entry (docs/INTERFACE.md §2.8: loc, msg, type, input, ctx) in words a person
// reads beside the input it names: "Must be more than 0 m/s", not "exclusiveMinimum". Pure: the
// client's ProblemError says them in its message, the explorer at its inputs, the CLI under its
// options (the Python client's _words.py says the same, held to it by a test).

/** How a reader writes numbers and times: the explorer its own (thin spaces, times as its inputs take them). */
export interface WordStyle {
  num: (x: number, digits: number) => string
  /** A time as the reader takes one. */
  timeExample: string
}
const PLAIN: WordStyle = { num: (x, digits) => x.toFixed(digits), timeExample: '2020-08-04T12:00:00Z' }

export interface ErrorItem {
  loc: Array<string | number>
  msg: string
  type: string
  input?: unknown
  ctx?: Record<string, unknown>
}

const limitText = (x: unknown, unit: string, num: WordStyle['num']): string => {
  const n = Number(x)
  return Number.isFinite(n) ? `${num(n, Number.isInteger(n) ? 0 : 2)}${unit}` : String(x)
}

const sentence = (s: string): string => {
  const t = s.trim()
  return t === '' ? 'This value was refused.' : /[.!?]$/.test(t) ? t : `${t}.`
}

const KINDS: Record<string, string> = {
  number_type: 'a number', int_type: 'a whole number', string_type: 'text', bool_type: 'yes or no (true or false)',
  list_type: 'a list', dict_type: 'a group of fields', none_type: 'empty'
}

/** The kinds whose words quote a limit: without one, the service's own message is said. */
const BOUNDED = /^(greater_than|greater_than_equal|less_than|less_than_equal|too_short|too_long)$/

/** The entry as one sentence; `unit` (e.g. " m/s") follows the limits it quotes. */
export function inWords (item: ErrorItem, unit = '', style: WordStyle = PLAIN): string {
  const { num, timeExample } = style
  const ctx = item.ctx ?? {}
  // the schema's checks say `limit`; a body's own rules (the samples' point count) `min_length` / `max_length`
  const bound = ctx.limit ?? (item.type === 'too_short' ? ctx.min_length : ctx.max_length)
  if ((bound === undefined || bound === null) && BOUNDED.test(item.type)) return sentence(item.msg)
  const limit = (): string => limitText(bound, unit, num)
  switch (item.type) {
    case 'missing':
      return /for the (standard|float)_profile/.test(item.msg) ? 'Needed for this flight profile.' : 'Required.'
    case 'extra_forbidden': return 'aloft does not know this field.'
    case 'greater_than': return `Must be more than ${limit()}.`
    case 'greater_than_equal': return `Must be ${limit()} or more.`
    case 'less_than': return `Must be less than ${limit()}.`
    case 'less_than_equal': return `Must be ${limit()} or less.`
    case 'too_short':
      return `Give at least ${limitText(bound, '', num)} ${/characters/.test(item.msg) ? 'characters' : 'values'}.`
    case 'too_long':
      return `Give at most ${limitText(bound, '', num)} ${/characters/.test(item.msg) ? 'characters' : 'values'}.`
    case 'datetime_format': return `Must be a UTC time like ${timeExample}.`
    case 'unique_items': return `${String(item.input)}${unit} is given twice; give each value once.`
    case 'enum': {
      const expected = Array.isArray(ctx.expected) ? ctx.expected.map(String).join(', ') : ''
      return expected === '' ? 'Not one of the accepted values.' : `Must be one of: ${expected}.`
    }
    case 'literal_error': return `Must be ${String(ctx.expected)}.`
    case 'string_pattern_mismatch': return 'Contains characters that are not allowed (control characters).'
    default: {
      const kind = KINDS[item.type]
      if (kind !== undefined) return `Must be ${kind}.`
      return sentence(item.msg)
    }
  }
}

/** An entry's location within the request's fields (without its leading `body` or `query`). */
export function fieldPath (loc: Array<string | number>): Array<string | number> {
  return loc[0] === 'body' || loc[0] === 'query' ? loc.slice(1) : loc
}

/** Where an entry points, in words, for entries no input on the page matches. */
export function placeInWords (loc: Array<string | number>): string {
  const path = fieldPath(loc)
  if (path.length === 0) return 'The request'
  return path.map((seg) => typeof seg === 'number' ? `item ${seg + 1}` : seg.replaceAll('_', ' '))
    .join(', ').replace(/^./, (c) => c.toUpperCase())
}
