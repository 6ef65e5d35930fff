// The problem document every refusal is (docs/INTERFACE.md §2.7, RFC 9457), with the `errors`
// extension for validation failures (§2.8).
import { Type, type Static } from '@sinclair/typebox'
import { PROBLEM_CODE_NAMES } from './codes.js'
import { VerticalCoverage } from './profile.js'
import { Nullable, StringEnum } from './schema-parts.js'

// 2.8: one validation failure
export const ValidationErrorItem = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  msg: Type.String(),
  type: Type.String(),
  input: Type.Optional(Type.Unknown()),
  ctx: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
}, { additionalProperties: false, $id: 'ValidationErrorItem' })
export type ValidationErrorItem = Static<typeof ValidationErrorItem>

// 2.7, with the `errors` extension for validation failures (docs/DESIGN.md §3)
export const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer({ minimum: 400, maximum: 599 }),
  code: StringEnum(PROBLEM_CODE_NAMES),
  request_id: Type.String(),
  detail: Type.Optional(Nullable(Type.String())),
  coverage: Type.Optional(Nullable(VerticalCoverage)),
  errors: Type.Optional(Type.Array(ValidationErrorItem))
}, { additionalProperties: false, $id: 'Problem' })
export type Problem = Static<typeof Problem>
