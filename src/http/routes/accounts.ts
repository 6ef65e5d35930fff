// Keys, account, usage and the operator's account creation: thin mappings onto the store.
import type { AllowanceState, KeyRecord } from '../../accounts/store.js'
import type {
  AccountInfo, BetaUsage, CreatedAccount, CreatedKey, KeyInfo, KeyList, NewAccount, NewKey
} from '../../contract/schemas.js'
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
      const { record, secret } = await withStore(() => store.createKey(accountId, body.name))
      const created: CreatedKey = { id: record.id, key: secret, name: record.name }
      return { status: 201, body: created, headers: { 'Cache-Control': 'no-store' } }
    }) satisfies Handler<NewKey>,

    list_keys: async ({ accountId }) => {
      const records = await withStore(() => store.listKeys(accountId))
      const list: KeyList = { keys: records.map(keyInfo) }
      return { body: list }
    },

    revoke_key: async ({ accountId, params }) => {
      const record = await withStore(() => store.revokeKey(accountId, params.id))
      if (record === null) throw new HttpProblem('not_found', { detail: 'This account has no key with that id.' })
      return { body: keyInfo(record) }
    },

    create_account: (async ({ body }) => {
      const account = await withStore(() => store.createAccount(body.name))
      const { record, secret } = await withStore(() => store.createKey(account.id, FIRST_KEY_NAME))
      const state = await withStore(() => store.allowance(account.id, now()))
      const created: CreatedAccount = {
        account: accountInfo(account.id, state),
        key: { id: record.id, key: secret, name: record.name }
      }
      return { status: 201, body: created, headers: { 'Cache-Control': 'no-store' } }
    }) satisfies Handler<NewAccount>
  }
}
