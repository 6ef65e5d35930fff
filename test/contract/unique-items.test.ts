// uniqueItems is answered by our own keyword (Ajv's formats every number as an object key): the
// same verdicts and the same reported pair as JSON Schema and Ajv give, for short and long arrays,
// scalars and objects.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { validate } from '../../src/contract/validate.js'

const Numbers = Type.Array(Type.Number(), { uniqueItems: true, maxItems: 32 })
const Anything = Type.Array(Type.Unknown(), { uniqueItems: true })

/** The unique_items item's location and the index it repeats, or 'ok'. */
function verdict (schema: typeof Numbers | typeof Anything, value: unknown[]): string | [unknown[], unknown] {
  const checked = validate(schema, value)
  if (checked.ok) return 'ok'
  const item = checked.errors.find((e) => e.type === 'unique_items')
  if (item === undefined) return 'ok'
  return [item.loc, item.ctx?.duplicate_of]
}

t.test('distinct numbers pass, however close', async (t) => {
  t.equal(verdict(Numbers, [300, 300.0000000001, 1000, -0.5]), 'ok')
  t.equal(verdict(Numbers, [1]), 'ok')
  t.equal(verdict(Numbers, []), 'ok')
})

t.test('a repeated number names the later index and the one it repeats', async (t) => {
  t.same(verdict(Numbers, [10, 20, 30, 20]), [['body', 3], 1])
  t.same(verdict(Numbers, [5, 5]), [['body', 1], 0])
})

t.test('with several repeats, the one found scanning down from the end is named, as Ajv names it', async (t) => {
  // scanning down: 2 (index 3) is seen, then 1 (index 2), then 2 at index 1 repeats index 3
  t.same(verdict(Numbers, [1, 2, 1, 2]), [['body', 3], 1])
})

t.test('0 and -0 are the same number in JSON', async (t) => {
  t.same(verdict(Numbers, [0, -0]), [['body', 1], 0])
})

t.test('a long array is checked the same way, and a repeat past item 32 is still found', async (t) => {
  const long = Array.from({ length: 40 }, (_, k) => k * 1.5)
  t.equal(verdict(Anything, long), 'ok')
  t.same(verdict(Anything, [...long, 3]), [['body', 40], 2])
  t.same(verdict(Anything, [...long, 1.5, 3]), [['body', 41], 2])
})

t.test('strings, booleans and null compare by value', async (t) => {
  t.equal(verdict(Anything, ['a', 'b', true, false, null]), 'ok')
  t.same(verdict(Anything, ['a', null, 'b', null]), [['body', 3], 1])
  t.equal(verdict(Anything, [1, '1', true]), 'ok')
})

t.test('objects and arrays compare deeply, whatever the order of their properties', async (t) => {
  t.equal(verdict(Anything, [{ a: 1 }, { a: 2 }, [1, 2], [2, 1]]), 'ok')
  t.same(verdict(Anything, [{ a: 1, b: [1] }, 7, { b: [1], a: 1 }]), [['body', 2], 0])
  t.same(verdict(Anything, [[1, [2]], [1, [2]]]), [['body', 1], 0])
})

t.test('the failing array is reported once, at its own location in a body', async (t) => {
  const Body = Type.Object({ heights: Numbers }, { additionalProperties: false })
  const checked = validate(Body, { heights: [1, 2, 2] })
  t.equal(checked.ok, false)
  if (checked.ok) return
  t.same(checked.errors.map((e) => [e.loc, e.type]), [[['body', 'heights', 2], 'unique_items']])
})
