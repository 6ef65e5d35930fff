// The key routes are bounded (the security probe's finding 6): they take request-rate tokens like
// every keyed route, an account holds a bounded number of live keys, revoked ones are kept only
// so far, and the list comes a page at a time.
import t from 'tap'
import { startTestService, type TestService } from '../helpers/service.js'

async function call (svc: TestService, key: string, method: string, path: string, body?: unknown):
Promise<{ status: number, body: any, headers: Headers }> {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })
  return { status: res.status, body: await res.json(), headers: res.headers }
}

t.test('creating keys takes request tokens: a burst, then 429', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_BURST: '5', ALOFT_RATE_PER_SECOND: '0.01' } })
  const { key } = await svc.newAccount()
  const statuses: number[] = []
  for (let k = 0; k < 7; k++) statuses.push((await call(svc, key, 'POST', '/v1/keys', { name: `k${k}` })).status)
  t.same(statuses, [201, 201, 201, 201, 201, 429, 429])
  const listed = await call(svc, key, 'GET', '/v1/keys')
  t.equal(listed.status, 429, 'listing takes a token too')
  t.ok(Number(listed.headers.get('retry-after')) >= 1)
})

t.test('an account holds at most ALOFT_MAX_KEYS_PER_ACCOUNT live keys: a 409 until one is revoked', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_MAX_KEYS_PER_ACCOUNT: '3', ALOFT_RATE_BURST: '100' } })
  const { key } = await svc.newAccount() // its first key is one of the three
  t.equal((await call(svc, key, 'POST', '/v1/keys', { name: 'two' })).status, 201)
  const three = await call(svc, key, 'POST', '/v1/keys', { name: 'three' })
  t.equal(three.status, 201)
  const refused = await call(svc, key, 'POST', '/v1/keys', { name: 'four' })
  t.equal(refused.status, 409)
  t.equal(refused.body.code, 'key_limit_reached')
  t.match(refused.body.detail, /holds 3 live keys/)
  t.equal((await call(svc, key, 'DELETE', `/v1/keys/${three.body.id as string}`)).status, 200)
  t.equal((await call(svc, key, 'POST', '/v1/keys', { name: 'four' })).status, 201, 'room again after a revoke')
})

t.test('the list comes a page at a time, newest first, with a cursor to the next', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_BURST: '100' } })
  const { key, keyId } = await svc.newAccount()
  const made = [keyId]
  for (let k = 0; k < 6; k++) made.push((await call(svc, key, 'POST', '/v1/keys', { name: `k${k}` })).body.id)
  made.reverse()
  const seen: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const page = await call(svc, key, 'GET', `/v1/keys?limit=3${cursor !== null ? `&cursor=${cursor}` : ''}`)
    t.equal(page.status, 200)
    t.ok(page.body.keys.length <= 3)
    seen.push(...page.body.keys.map((k: { id: string }) => k.id))
    cursor = page.body.next_cursor
    pages++
  } while (cursor !== null && pages < 10)
  t.same(seen, made, 'every key once, newest first')
  t.equal(pages, 3)
  const whole = await call(svc, key, 'GET', '/v1/keys')
  t.equal(whole.body.keys.length, 7, 'the default page holds them all')
  t.equal(whole.body.next_cursor, null)
})

t.test('a bad page is a 400 naming the parameter', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_BURST: '100' } })
  const { key } = await svc.newAccount()
  for (const [query, loc] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=x', 'limit'],
    ['cursor=key_doesnotexist00000', 'cursor'], ['colour=red', 'colour']]) {
    const res = await call(svc, key, 'GET', `/v1/keys?${query}`)
    t.equal(res.status, 400, query)
    t.same(res.body.errors[0].loc, ['query', loc], query)
  }
})
