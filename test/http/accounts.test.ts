// Keys, account, usage, admin and rate limits through HTTP, on the Redis store (real server).
import t from 'tap'
import { createHash } from 'node:crypto'
import { startTestService, expectProblem, assertSchema, ADMIN_TOKEN } from '../helpers/service.js'
import { testPrefix } from '../helpers/redis.js'
import { AccountInfo, BetaUsage, CreatedAccount, CreatedKey, KeyInfo, KeyList } from '../../src/contract/schemas.js'

const prefix = testPrefix(t, 'http-accounts')
const svc = await startTestService(t, { redisPrefix: prefix, env: { ALOFT_DAILY_ALLOWANCE: '5' } })

const json = (key: string | undefined, method: string, body?: unknown): RequestInit => ({
  method,
  headers: {
    ...(key !== undefined ? { 'x-api-key': key } : {}),
    ...(body !== undefined ? { 'content-type': 'application/json' } : {})
  },
  body: body === undefined ? undefined : JSON.stringify(body)
})

t.test('the admin route creates an account and its first key', async (t) => {
  const res = await fetch(`${svc.url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{"name":"ops"}'
  })
  t.equal(res.status, 201)
  t.equal(res.headers.get('cache-control'), 'no-store')
  const body = await res.json() as CreatedAccount
  assertSchema(t, CreatedAccount, body)
  t.match(body.key.key, /^aloft_/)
  t.match(body.account, {
    billing_enabled: false,
    allowance_kind: 'daily_upstream_attempts',
    period: 'utc_day',
    upstream_attempts: 0,
    limit: 5,
    remaining: 5
  })
})

t.test('the admin route without a bearer token is a 401, with a wrong one a 403', async (t) => {
  const none = await fetch(`${svc.url}/v1/admin/accounts`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}'
  })
  await expectProblem(t, none, { status: 401, code: 'unauthorized' })
  const wrong = await fetch(`${svc.url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: 'Bearer not-the-token-at-all', 'content-type': 'application/json' },
    body: '{"name":"x"}'
  })
  await expectProblem(t, wrong, { status: 403, code: 'forbidden' })
})

t.test('the admin route validates its body', async (t) => {
  const res = await fetch(`${svc.url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{"name":""}'
  })
  const problem = await expectProblem(t, res, { status: 400, code: 'invalid_request' })
  t.same(problem.errors[0].loc, ['body', 'name'])
})

t.test('without an admin token the admin route does not exist', async (t) => {
  const bare = await startTestService(t, { env: { ALOFT_ADMIN_TOKEN: '' } })
  const res = await fetch(`${bare.url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{"name":"x"}'
  })
  await expectProblem(t, res, { status: 404, code: 'not_found' })
})

t.test('POST /v1/keys creates a key shown once', async (t) => {
  const { key } = await svc.newAccount()
  const res = await fetch(`${svc.url}/v1/keys`, json(key, 'POST', { name: 'ci runner' }))
  t.equal(res.status, 201)
  const created = await res.json() as CreatedKey
  assertSchema(t, CreatedKey, created)
  t.equal(created.name, 'ci runner')
  t.match(created.key, /^aloft_/)
  const usable = await fetch(`${svc.url}/v1/account`, json(created.key, 'GET'))
  t.equal(usable.status, 200, 'the new key works')
  const list = await (await fetch(`${svc.url}/v1/keys`, json(key, 'GET'))).json() as KeyList
  t.notMatch(JSON.stringify(list), created.key, 'the secret is never listed')
})

const badNames: Array<[string, unknown, string]> = [
  ['an empty name', { name: '' }, 'too_short'],
  ['an 81-character name', { name: 'n'.repeat(81) }, 'too_long'],
  ['a name with a control character', { name: 'tab\there' }, 'string_pattern_mismatch'],
  ['a name with DEL', { name: 'del\u007f' }, 'string_pattern_mismatch'],
  ['an unknown property', { name: 'ok', scope: 'all' }, 'extra_forbidden'],
  ['a missing name', {}, 'missing']
]
for (const [what, body, type] of badNames) {
  t.test(`POST /v1/keys with ${what} is a 400`, async (t) => {
    const { key } = await svc.newAccount()
    const problem = await expectProblem(
      t,
      await fetch(`${svc.url}/v1/keys`, json(key, 'POST', body)),
      { status: 400, code: 'invalid_request' }
    )
    t.equal(problem.errors[0].type, type)
  })
}

t.test('an 80-character name with non-ASCII letters is accepted', async (t) => {
  const { key } = await svc.newAccount()
  const res = await fetch(`${svc.url}/v1/keys`, json(key, 'POST', { name: 'ł'.repeat(80) }))
  t.equal(res.status, 201)
})

t.test('GET /v1/keys lists the account\'s keys, newest first', async (t) => {
  const { key, keyId } = await svc.newAccount()
  const a = await (await fetch(`${svc.url}/v1/keys`, json(key, 'POST', { name: 'a' }))).json() as CreatedKey
  const b = await (await fetch(`${svc.url}/v1/keys`, json(key, 'POST', { name: 'b' }))).json() as CreatedKey
  const res = await fetch(`${svc.url}/v1/keys`, json(key, 'GET'))
  const list = await res.json() as KeyList
  assertSchema(t, KeyList, list)
  t.same(list.keys.map((k) => k.id), [b.id, a.id, keyId])
  for (const k of list.keys) t.equal(k.revoked_at, null)
})

t.test('DELETE /v1/keys/{id} revokes, idempotently, and the key is refused at once', async (t) => {
  const { key } = await svc.newAccount()
  const other = await (await fetch(`${svc.url}/v1/keys`, json(key, 'POST', { name: 'to revoke' }))).json() as CreatedKey
  const first = await fetch(`${svc.url}/v1/keys/${other.id}`, json(key, 'DELETE'))
  t.equal(first.status, 200)
  const info = await first.json() as KeyInfo
  assertSchema(t, KeyInfo, info)
  t.type(info.revoked_at, 'number')
  const again = await (await fetch(`${svc.url}/v1/keys/${other.id}`, json(key, 'DELETE'))).json() as KeyInfo
  t.equal(again.revoked_at, info.revoked_at, 'revoking twice keeps the first revocation time')
  const refused = await fetch(`${svc.url}/v1/atmosphere/usage`, json(other.key, 'GET'))
  await expectProblem(t, refused, { status: 401, code: 'revoked_api_key' })
})

t.test('another account\'s key id, or an unknown one, is a 404', async (t) => {
  const mine = await svc.newAccount('mine')
  const theirs = await svc.newAccount('theirs')
  await expectProblem(
    t,
    await fetch(`${svc.url}/v1/keys/${theirs.keyId}`, json(mine.key, 'DELETE')),
    { status: 404, code: 'not_found' }
  )
  await expectProblem(
    t,
    await fetch(`${svc.url}/v1/keys/key_doesnotexist`, json(mine.key, 'DELETE')),
    { status: 404, code: 'not_found' }
  )
  const still = await fetch(`${svc.url}/v1/account`, json(theirs.key, 'GET'))
  t.equal(still.status, 200, 'their key was not revoked')
})

t.test('GET /v1/account and GET /v1/atmosphere/usage describe today\'s allowance', async (t) => {
  const { key, accountId } = await svc.newAccount()
  await svc.store.reserve(accountId)
  await svc.store.reserve(accountId)
  const account = await (await fetch(`${svc.url}/v1/account`, json(key, 'GET'))).json() as AccountInfo
  assertSchema(t, AccountInfo, account)
  t.match(account, { id: accountId, upstream_attempts: 2, limit: 5, remaining: 3 })
  const usage = await (await fetch(`${svc.url}/v1/atmosphere/usage`, json(key, 'GET'))).json() as BetaUsage
  assertSchema(t, BetaUsage, usage)
  t.match(usage, { upstream_attempts: 2, limit: 5, remaining: 3, period: 'utc_day', billing_enabled: false })
  t.ok(usage.reset_after_seconds >= 1 && usage.reset_after_seconds <= 86400)
})

t.test('401s: missing, unknown and revoked keys, each with its code', async (t) => {
  await expectProblem(t, await fetch(`${svc.url}/v1/atmosphere/usage`), { status: 401, code: 'missing_api_key' })
  await expectProblem(
    t,
    await fetch(`${svc.url}/v1/atmosphere/usage`, json('aloft_notarealkey', 'GET')),
    { status: 401, code: 'invalid_api_key' }
  )
  await expectProblem(t, await fetch(`${svc.url}/v1/keys`, json('', 'GET')), { status: 401, code: 'missing_api_key' })
})

t.test('on the profile route every 401 is titled "Invalid beta key"', async (t) => {
  const { key, keyId } = await svc.newAccount()
  await fetch(`${svc.url}/v1/keys/${keyId}`, json(key, 'DELETE'))
  const body = {
    latitude: 0, longitude: 0, time: '2020-08-04T18:00:00Z', altitudes_m: [1000], altitude_reference: 'agl'
  }
  const cases = [[undefined, 'missing_api_key'], ['aloft_nope', 'invalid_api_key'], [key, 'revoked_api_key']] as const
  for (const [header, code] of cases) {
    const problem = await expectProblem(
      t,
      await fetch(`${svc.url}/v1/atmosphere/profile`, json(header, 'POST', body)),
      { status: 401, code }
    )
    t.equal(problem.title, 'Invalid beta key')
  }
  const usage = await expectProblem(
    t,
    await fetch(`${svc.url}/v1/atmosphere/usage`),
    { status: 401, code: 'missing_api_key' }
  )
  t.not(usage.title, 'Invalid beta key', 'other routes keep their own titles')
})

t.test('no key nor key hash appears in any log line', async (t) => {
  const { key } = await svc.newAccount()
  const created = await (await fetch(`${svc.url}/v1/keys`, json(key, 'POST', { name: 'logged?' }))).json() as CreatedKey
  await fetch(`${svc.url}/v1/atmosphere/usage`, json(created.key, 'GET'))
  await fetch(`${svc.url}/v1/atmosphere/usage`, json(created.key + 'x', 'GET'))
  await new Promise((r) => setTimeout(r, 20))
  const logs = svc.logs.join('\n')
  t.ok(logs.includes('account_id'), 'requests were logged')
  for (const secret of [key, created.key]) {
    t.notOk(logs.includes(secret), 'no secret')
    t.notOk(logs.includes(secret.slice(6)), 'no secret without its prefix')
    t.notOk(logs.includes(createHash('sha256').update(secret).digest('hex')), 'no hash')
    t.notOk(logs.includes(createHash('sha256').update(secret).digest('base64url')), 'no hash (base64url)')
  }
})
