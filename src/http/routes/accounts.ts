// Keys, account, usage and the operator's account creation: thin mappings onto the store.
import { KeyLimitError, UnknownCursorError, type AllowanceState, type KeyRecord } from '../../accounts/index.js'
import {
  KEY_PAGE, KeyListQuery, type AccountInfo, type BetaUsage, type CreatedAccount, type CreatedKey, type KeyInfo,
  type KeyList, type NewAccount, type NewKey, validate
} from '../../contract/index.js'
import { HttpProblem } from '../problem.js'
import { withStore } from '../auth.js'
import type { AppDeps, Handler, Handlers } from '../context.js'

/** Name of the key made together with an account by the operator. */
export const FIRST_KEY_NAME = 'default'

export function keyInfo (record: KeyRecord): KeyInfo {
  return { id: record.id, prefix: record.prefix, name: record.name, created_at: record.created_at,
    revoked_at: record.revoked_at }
}

function usage (state: AllowanceState): BetaUsage {
  return {
    upstream_attempts: state.upstream_attempts,
    limit: state.limit,
    remaining: state.remaining,
    reset_after_seconds: state.reset_after_seconds,
    period: 'utc_day',
    billing_enabled: false
  }
}

function accountInfo (id: string, state: AllowanceState): AccountInfo {
  return {
    id,
    billing_enabled: false,
    allowance_kind: 'daily_upstream_attempts',
    period: 'utc_day',
    upstream_attempts: state.upstream_attempts,
    limit: state.limit,
    remaining: state.remaining,
    reset_after_seconds: state.reset_after_seconds
  }
}

/** GET /v1/keys's query: `limit` as a number, checked with its schema. */
function pageOf (query: Record<string, unknown>): KeyListQuery {
  const raw: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [name, value] of Object.entries(query)) {
    raw[name] = name === 'limit' && typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value
  }
  const checked = validate(KeyListQuery, raw, 'query')
  if (!checked.ok) {
    throw new HttpProblem('invalid_request', { detail: `The query does not describe a page of keys: ` +
      `${checked.total} error(s).`, errors: checked.errors })
  }
  return checked.value
}

/** A key made for the account; the key cap as its problem. */
async function newKey (deps: AppDeps, accountId: string, name: string): Promise<{ record: KeyRecord, secret: string }> {
  try {
    return await withStore(() => deps.store.createKey(accountId, name))
  } catch (err) {
    if (!(err instanceof KeyLimitError)) throw err
    throw new HttpProblem('key_limit_reached', { detail: `This account holds ${err.limit} live keys, the most ` +
      'allowed; revoke one it no longer uses first.' })
  }
}

export function accountHandlers (deps: AppDeps): Handlers {
  const { store } = deps
  const now = (): number | undefined => deps.now?.()
  return {
    usage_v1_atmosphere_usage_get: async ({ accountId }) => ({
      body: usage(await withStore(() => store.allowance(accountId, now())))
    }),

    get_account: async ({ accountId }) => ({
      body: accountInfo(accountId, await withStore(() => store.allowance(accountId, now())))
    }),

    create_key: (async ({ accountId, body }) => {
      const { record, secret } = await newKey(deps, accountId, body.name)
      const created: CreatedKey = { id: record.id, key: secret, name: record.name }
      return { status: 201, body: created, headers: { 'Cache-Control': 'no-store' } }
    }) satisfies Handler<NewKey>,

    list_keys: async ({ req, accountId }) => {
      const page = pageOf((req.query ?? {}) as Record<string, unknown>)
      const limit = page.limit ?? KEY_PAGE.default
      let records: KeyRecord[]
      try {
        // one more than the page, to know whether another follows
        records = await withStore(() => store.listKeys(accountId, { limit: limit + 1, after: page.cursor }))
      } catch (err) {
        if (!(err instanceof UnknownCursorError)) throw err
        throw new HttpProblem('invalid_request', { detail: 'The cursor names no key of this account\'s list (it ' +
          'may have been forgotten since); start again without one.', errors: [{ loc: ['query', 'cursor'],
          msg: 'Unknown cursor', type: 'value_error', input: page.cursor }] })
      }
      const more = records.length > limit
      const keys = records.slice(0, limit)
      const list: KeyList = { keys: keys.map(keyInfo), next_cursor: more ? keys[keys.length - 1].id : null }
      return { body: list }
    },

    revoke_key: async ({ accountId, params }) => {
      const record = await withStore(() => store.revokeKey(accountId, params.id))
      if (record === null) throw new HttpProblem('not_found', { detail: 'This account has no key with that id.' })
      return { body: keyInfo(record) }
    },

    create_account: (async ({ body }) => {
      const account = await withStore(() => store.createAccount(body.name))
      const { record, secret } = await newKey(deps, account.id, FIRST_KEY_NAME)
      const state = await withStore(() => store.allowance(account.id, now()))
      const created: CreatedAccount = {
        account: accountInfo(account.id, state),
        key: { id: record.id, key: secret, name: record.name }
      }
      return { status: 201, body: created, headers: { 'Cache-Control': 'no-store' } }
    }) satisfies Handler<NewAccount>
  }
}
