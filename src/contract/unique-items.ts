// JSON Schema's `uniqueItems` keyword, registered with Ajv in validate.ts in place of its own.
import type { ErrorObject } from 'ajv'
import equalModule from 'ajv/dist/runtime/equal.js'

// Ajv's runtime equality (fast-deep-equal) is CommonJS: under NodeNext the default import is the
// CommonJS exports
const deepEqual = (equalModule as unknown as { default: (a: unknown, b: unknown) => boolean }).default

/**
 * JSON Schema's uniqueItems, answered as Ajv answers it (the first repeat found scanning down from
 * the end, its two indices as `i` < `j`). Ajv's own code keys an object by each number's text for
 * arrays of numbers: every height formatted and a dictionary built, 9 of the 10 µs a profile body's
 * validation took. Scalars compare with === (JSON Schema equality for numbers and strings), by
 * scanning when short and through a Map when long; anything else with Ajv's deep equality.
 */
export function uniqueItems (this: unknown, unique: boolean, data: unknown[]): boolean {
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
