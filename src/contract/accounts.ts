// Keys, accounts and usage (docs/INTERFACE.md §2.6, §2.9): what the key, account, usage and
// operator routes take and answer.
import { Type, type Static } from '@sinclair/typebox'
import { LIMITS } from './limits.js'
import { Nullable } from './schema-parts.js'

// 2.6
export const BetaUsage = Type.Object({
  upstream_attempts: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer({ minimum: 0 }),
  reset_after_seconds: Type.Integer({ minimum: 1 }),
  period: Type.Optional(Type.Literal('utc_day', { default: 'utc_day' })),
  billing_enabled: Type.Optional(Type.Literal(false, { default: false }))
}, { additionalProperties: false, $id: 'BetaUsage' })
export type BetaUsage = Static<typeof BetaUsage>

// 2.9
const KeyName = Type.String({
  minLength: LIMITS.keyNameLength.min,
  maxLength: LIMITS.keyNameLength.max,
  // No C0 controls nor DEL (docs/INTERFACE.md §2.9).
  pattern: '^[^\\u0000-\\u001F\\u007F]*$'
})

export const NewKey = Type.Object({ name: KeyName }, { additionalProperties: false, $id: 'NewKey' })
export type NewKey = Static<typeof NewKey>

export const NewAccount = Type.Object({ name: KeyName }, { additionalProperties: false, $id: 'NewAccount' })
export type NewAccount = Static<typeof NewAccount>

export const CreatedKey = Type.Object({
  id: Type.String(),
  key: Type.String({
    description: 'the secret: returned only once; store it securely, never in a browser application'
  }),
  name: Type.String()
}, { additionalProperties: false, $id: 'CreatedKey' })
export type CreatedKey = Static<typeof CreatedKey>

export const KeyInfo = Type.Object({
  id: Type.String(),
  prefix: Type.String(),
  name: Type.String(),
  created_at: Type.Number({ description: 'Unix epoch seconds' }),
  revoked_at: Nullable(Type.Number({ description: 'Unix epoch seconds' }))
}, { additionalProperties: false, $id: 'KeyInfo' })
export type KeyInfo = Static<typeof KeyInfo>

export const KeyList = Type.Object({
  keys: Type.Array(KeyInfo, { description: 'newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass as `cursor` for the next page; null on the last page'
  })
}, { additionalProperties: false, $id: 'KeyList' })
export type KeyList = Static<typeof KeyList>

/** Keys per page of GET /v1/keys (its `limit` query parameter's bounds and default). */
export const KEY_PAGE = { min: 1, max: 100, default: 100 } as const

export const KeyListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: KEY_PAGE.min, maximum: KEY_PAGE.max,
    description: `keys per page (default ${KEY_PAGE.default})` })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'the previous page\'s next_cursor' }))
}, { additionalProperties: false, $id: 'KeyListQuery' })
export type KeyListQuery = Static<typeof KeyListQuery>

export const AccountInfo = Type.Object({
  id: Type.String(),
  billing_enabled: Type.Boolean(),
  allowance_kind: Type.Literal('daily_upstream_attempts'),
  period: Type.Literal('utc_day'),
  upstream_attempts: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer({ minimum: 0 }),
  reset_after_seconds: Type.Integer({ minimum: 1 })
}, { additionalProperties: false, $id: 'AccountInfo' })
export type AccountInfo = Static<typeof AccountInfo>

export const CreatedAccount = Type.Object({
  account: AccountInfo,
  key: CreatedKey
}, { additionalProperties: false, $id: 'CreatedAccount' })
export type CreatedAccount = Static<typeof CreatedAccount>
