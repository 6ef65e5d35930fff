// What the README shows a command printing against what it printed, with the README's elision mark
// `…` for what differs from run to run or is left out: in JSON answers, in JSON fragments and in
// printed lines alike (test/readme.test.ts).

/**
 * Where an answer the README shows differs from the one the demo gave, or null. `"…"` matches
 * anything; an object with a `"…"` key may have more fields (else exactly those shown); an array
 * entry beginning with `…` stands for further entries (those before it are the first, those after
 * the last); a text ending in `…` is a beginning.
 */
export function differs (shown: unknown, got: unknown, at = '$'): string | null {
  if (typeof shown === 'string' && shown.startsWith('…')) return null
  if (typeof shown === 'string' && shown.endsWith('…')) {
    return typeof got === 'string' && got.startsWith(shown.slice(0, -1)) ? null : `${at}: ${JSON.stringify(got)}`
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(got)) return `${at}: not an array`
    const gap = shown.findIndex((x) => typeof x === 'string' && x.startsWith('…'))
    if (gap < 0 && shown.length !== got.length) return `${at}: ${got.length} entries, ${shown.length} shown`
    const head = gap < 0 ? shown : shown.slice(0, gap)
    const tail = gap < 0 ? [] : shown.slice(shown.findLastIndex((x) => typeof x === 'string' && x.startsWith('…')) + 1)
    if (head.length + tail.length > got.length) return `${at}: ${got.length} entries, more shown`
    for (const [k, x] of head.entries()) { const d = differs(x, got[k], `${at}[${k}]`); if (d !== null) return d }
    for (const [k, x] of tail.entries()) {
      const n = got.length - tail.length + k
      const d = differs(x, got[n], `${at}[${n}]`)
      if (d !== null) return d
    }
    return null
  }
  if (shown !== null && typeof shown === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${at}: not an object`
    const fields = shown as Record<string, unknown>
    const answer = got as Record<string, unknown>
    if (!('…' in fields)) {
      const extra = Object.keys(answer).filter((k) => !(k in fields))
      if (extra.length > 0) return `${at}: fields not shown: ${extra.join(', ')}`
    }
    for (const [k, x] of Object.entries(fields)) {
      if (k === '…') continue
      if (!(k in answer)) return `${at}.${k}: missing`
      const d = differs(x, answer[k], `${at}.${k}`)
      if (d !== null) return d
    }
    return null
  }
  return Object.is(shown, got) ? null : `${at}: ${JSON.stringify(got)}, ${JSON.stringify(shown)} shown`
}

/** Whether a shown line stands for further lines: it begins with `…`, as an array entry does. */
const isGap = (line: string): boolean => line.trimStart().startsWith('…')

/**
 * Where printed lines differ from those the README shows, or null: all of them, in order, but that
 * `…` inside a line stands for any text and a line beginning with `…` for any number of lines.
 */
export function linesDiffer (shown: string, got: string): string | null {
  const patterns = lines(shown).map((l) => isGap(l)
    ? null
    : new RegExp(`^${l.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`))
  const printed = lines(got)
  const fits = (i: number, j: number): boolean => {
    if (i === patterns.length) return j === printed.length
    const p = patterns[i]
    if (p === null) return printed.slice(j).some((_, k) => fits(i + 1, j + k)) || fits(i + 1, printed.length)
    return j < printed.length && p.test(printed[j]) && fits(i + 1, j + 1)
  }
  if (fits(0, 0)) return null
  const missing = lines(shown).find((l, i) => patterns[i] !== null && !printed.some((p) => patterns[i]!.test(p)))
  return missing === undefined ? 'the lines shown are printed, but not as shown (order, or lines not shown)'
    : `not printed: ${missing}`
}

/** Lines without the trailing newline (and blank lines) a block or an output ends with. */
function lines (text: string): string[] {
  return text.replace(/\s+$/, '').split('\n').map((l) => l.trimEnd())
}

/** Every JSON document in what a block printed (several curls print theirs one after another). */
export function jsonValues (text: string): unknown[] {
  const values: unknown[] = []
  for (let start = text.search(/[{[]/); start >= 0;) {
    const end = valueEnd(text, start)
    let next = start + 1
    try {
      values.push(JSON.parse(text.slice(start, end)))
      next = end
    } catch {
      // not JSON where it opened (a metric's labels, say): look on from the next character
    }
    const ahead = text.slice(next).search(/[{[]/)
    start = ahead < 0 ? -1 : next + ahead
  }
  return values
}

/** Where the brackets opened at `start` close, strings skipped; the text's end if they do not. */
function valueEnd (text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let k = start; k < text.length; k++) {
    const c = text[k]
    if (inString) {
      if (c === '\\') k++
      else if (c === '"') inString = false
    } else if (c === '"') {
      inString = true
    } else if (c === '{' || c === '[') {
      depth++
    } else if ((c === '}' || c === ']') && --depth === 0) {
      return k + 1
    }
  }
  return text.length
}

/**
 * Where a fragment of an object the README shows (`"runs": […], "runs_complete": true`) differs
 * from every object in the answers printed, or null when one of them has those fields as shown.
 */
export function fragmentDiffers (fragment: Record<string, unknown>, answers: unknown[]): string | null {
  const shown = { ...fragment, '…': 'the object\'s other fields' }
  const objects = (v: unknown): object[] => v !== null && typeof v === 'object'
    ? [...(Array.isArray(v) ? [] : [v]), ...Object.values(v).flatMap(objects)]
    : []
  const candidates = answers.flatMap(objects)
  if (candidates.some((o) => differs(shown, o) === null)) return null
  const near = candidates.find((o) => Object.keys(fragment).every((k) => k in o))
  return near === undefined ? `no object printed has the fields ${Object.keys(fragment).join(', ')}`
    : differs(shown, near)
}
