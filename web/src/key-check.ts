// "Use key" checks the key once with GET /v1/account (no data is fetched, one request token is
// spent) and says whether it works, from the problem's `code`: unknown, revoked, the account
// store unavailable, or fine. The key is used either way; the sentence says what to expect.
import { api, ApiError } from './api.js'
import { num } from './format.js'

export type KeyState = 'ok' | 'none' | 'unknown' | 'revoked' | 'unavailable' | 'limited' | 'unreachable' | 'other'

export interface KeyVerdict {
  state: KeyState
  message: string
}

const BY_CODE: Record<string, [KeyState, string]> = {
  invalid_api_key: ['unknown', 'This key is not known to this aloft: check it for typos (npm run demo prints one).'],
  revoked_api_key: ['revoked', 'This key has been revoked: use another key of your account.'],
  missing_api_key: ['none', 'No key entered.'],
  service_unavailable: ['unavailable', 'The account store is unavailable, so the key could not be checked: ' +
    'try again in a few seconds.'],
  rate_limited: ['limited', 'Too many requests just now, so the key could not be checked: try again shortly.']
}

export async function checkKey (key: string): Promise<KeyVerdict> {
  if (key === '') return { state: 'none', message: 'No key set.' }
  try {
    const account = await api.account(key)
    return {
      state: 'ok',
      message: `Key works: ${num(account.remaining, 0)} of ${num(account.limit, 0)} data fetches left today.`
    }
  } catch (err) {
    if (!(err instanceof ApiError)) return { state: 'other', message: `The key could not be checked: ${String(err)}` }
    if (err.status === 0) return { state: 'unreachable', message: `The key could not be checked: ${err.detail}` }
    const known = BY_CODE[String(err.problem?.code ?? '')]
    if (known !== undefined) return { state: known[0], message: known[1] }
    return { state: 'other', message: `The key could not be checked: ${err.title} (HTTP ${err.status}).` }
  }
}
