// The compiled response serialisers write exactly what JSON.stringify writes for the values the
// schemas describe, and fall back to JSON.stringify for anything they do not model.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { compileSerializer } from '../../src/contract/serialize.js'
import { AtmosphereResponse, Capabilities, KeyList } from '../../src/contract/schemas.js'
import { startTestService } from '../helpers/service.js'

const Sample = Type.Object({
  n: Type.Number(),
  i: Type.Integer(),
  maybe: Type.Union([Type.Number(), Type.Null()]),
  bounded: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
  flag: Type.Boolean(),
  text: Type.String(),
  list: Type.Array(Type.Number()),
  nested: Type.Object({ a: Type.String(), b: Type.Optional(Type.Number()) }, { additionalProperties: false }),
  record: Type.Optional(Type.Record(Type.String(), Type.Number())),
  free: Type.Optional(Type.Unknown())
}, { additionalProperties: false })
const serialize = compileSerializer(Sample)

const base = {
  n: 1.5, i: 3, maybe: null, bounded: 2, flag: true, text: 'plain', list: [1, 2.25, -0], nested: { a: 'x', b: 4 }
}

t.test('a value the schema describes serialises exactly as JSON.stringify does', async (t) => {
  t.equal(serialize(base), JSON.stringify(base))
})

t.test('properties come out in schema order whatever the object order', async (t) => {
  const reordered = {
    nested: { b: 4, a: 'x' }, list: [1], text: 't', flag: false, bounded: null, maybe: 7, i: 0, n: 0.1
  }
  t.equal(
    serialize(reordered),
    '{"n":0.1,"i":0,"maybe":7,"bounded":null,"flag":false,"text":"t","list":[1],"nested":{"a":"x","b":4}}'
  )
})

t.test('non-finite numbers are null, as in JSON.stringify', async (t) => {
  const value = { ...base, n: NaN, bounded: Infinity, list: [-Infinity, 1] }
  t.equal(serialize(value), JSON.stringify(value))
})

t.test('strings that need escaping are escaped like JSON.stringify, lone surrogates included', async (t) => {
  // compared as booleans: a raw U+2028 or lone surrogate in a TAP message would break the stream
  const texts = [
    'quote " and \\ backslash', 'line\nbreak\ttab\u0001', 'emoji 😀', 'lone \ud800 surrogate', '\u2028\u2029', ''
  ]
  texts.forEach((text, k) => {
    const value = { ...base, text }
    t.ok(serialize(value) === JSON.stringify(value), `string ${k} as JSON.stringify writes it`)
    t.ok(JSON.parse(serialize(value)).text === text, `string ${k} reads back`)
  })
})

t.test('undefined properties are left out and undefined array entries are null', async (t) => {
  const value = { ...base, nested: { a: 'x', b: undefined }, list: [1, undefined as unknown as number, 3] }
  t.equal(serialize(value), JSON.stringify(value))
})

t.test('properties the schema does not list are not written', async (t) => {
  const value = { ...base, secret: 'must not leak' }
  t.notMatch(serialize(value), /secret/)
})

t.test('what the compiler does not model goes through JSON.stringify', async (t) => {
  const value = { ...base, record: { z: 1, a: 2 }, free: { deep: [1, 'two', null], when: new Date(0) } }
  t.equal(serialize(value), JSON.stringify(value))
})

t.test('a value of the wrong type still gives valid JSON (JSON.stringify of that value)', async (t) => {
  const value = { ...base, n: 'not a number', flag: 'yes', list: 'nope', nested: null, text: 42 }
  t.equal(serialize(value), JSON.stringify(value))
})

t.test('real responses: profile, capabilities and key list are byte for byte JSON.stringify', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const body = {
    latitude: 52.23,
    longitude: 21.01,
    time: '2020-08-04T18:00:00Z',
    altitudes_m: [10, 300, 1000, 3000, 10000, 20000],
    altitude_reference: 'agl'
  }
  for (const ground of [undefined, 150.5]) {
    const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ ...body, ground_elevation_m_msl: ground })
    })
    t.equal(res.status, 200)
    const text = await res.text()
    t.equal(text, JSON.stringify(JSON.parse(text)), `profile (ground ${ground}): canonical JSON`)
    t.equal(compileSerializer(AtmosphereResponse)(JSON.parse(text)), text)
  }
  const caps = await (await fetch(`${svc.url}/v1/atmosphere/capabilities`)).text()
  t.equal(compileSerializer(Capabilities)(JSON.parse(caps)), JSON.stringify(JSON.parse(caps)))
  const keys = await (await fetch(`${svc.url}/v1/keys`, { headers: { 'x-api-key': key } })).text()
  t.equal(compileSerializer(KeyList)(JSON.parse(keys)), keys)
})
