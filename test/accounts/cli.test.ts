// `aloft accounts` and `aloft keys`, run in-process against the test Redis under a prefix of
// their own; the records they print are checked against the store itself.
import t, { type Test } from 'tap'
import { run as accounts } from '../../src/cli/accounts.js'
import { type CliIo, run as keys } from '../../src/cli/keys.js'
import { type AccountStore, createStore, DEFAULT_LIMITS } from '../../src/accounts/index.js'
import { dumpPrefix, freePort, redisUrl, testPrefix } from '../helpers/redis.js'

const url = redisUrl()

interface Captured { io: CliIo, out: string[], err: string[] }

function capture (env: NodeJS.ProcessEnv): Captured {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (l) => out.push(l), err: (l) => err.push(l), env }, out, err }
}

/** A prefix for this test, an env naming it, and a store on it to check what the CLI did. */
function setup (t: Test): { env: NodeJS.ProcessEnv, store: AccountStore, prefix: string } {
  const prefix = testPrefix(t, 'cli', url)
  const store = createStore({ redisUrl: url, prefix, limits: DEFAULT_LIMITS })
  t.teardown(() => store.close())
  return { env: { REDIS_URL: url, ALOFT_REDIS_PREFIX: prefix }, store, prefix }
}

async function createAccount (
  env: NodeJS.ProcessEnv
): Promise<{ account: { id: string }, key: { id: string, key: string } }> {
  const c = capture(env)
  await accounts(['create', '--name', 'Acme', '--json'], c.io)
  return JSON.parse(c.out[0])
}

t.test('accounts create --json prints the account and its first key with the secret, once', async (t) => {
  const { env, store, prefix } = setup(t)
  const c = capture(env)
  t.equal(await accounts(['create', '--name', 'Acme', '--json'], c.io), 0)
  t.equal(c.out.length, 1)
  const printed = JSON.parse(c.out[0])
  t.same(await store.getAccount(printed.account.id), printed.account)
  t.match(printed.key, { account_id: printed.account.id, name: 'default', revoked_at: null, key: /^aloft_/ })
  t.same(
    await store.authenticate(printed.key.key),
    { ok: true, account_id: printed.account.id, key_id: printed.key.id }
  )
  t.match(c.err.join('\n'), /shown only once/)
  t.notOk(
    [...(await dumpPrefix(url, prefix)).values()].join('\n').includes(printed.key.key.slice(12)),
    'the secret is not stored'
  )
})

t.test('accounts create prints readable lines by default, naming the key with --key-name', async (t) => {
  const { env } = setup(t)
  const c = capture(env)
  t.equal(await accounts(['create', '--name', 'Acme', '--key-name', 'ci'], c.io), 0)
  t.match(c.out[0], /^account {2}acct_\S+ {2}"Acme" {2}created \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  t.match(c.out[1], /^key {6}key_\S+ {2}"ci" {2}prefix aloft_\S{6} {2}account acct_/)
  t.match(c.out[2], /^secret {3}aloft_[A-Za-z0-9_-]{43}$/)
  t.match(c.err.join('\n'), /shown only once/)
})

t.test('keys create adds a key to an account', async (t) => {
  const { env, store } = setup(t)
  const { account } = await createAccount(env)
  const c = capture(env)
  t.equal(await keys(['create', '--account', account.id, '--name', 'laptop', '--json'], c.io), 0)
  const printed = JSON.parse(c.out[0])
  t.match(printed, { account_id: account.id, name: 'laptop', key: /^aloft_/ })
  t.match(await store.authenticate(printed.key), { ok: true, key_id: printed.id })
  t.match(c.err.join('\n'), /shown only once/)
})

t.test('keys create for an unknown account fails with exit 1', async (t) => {
  const { env } = setup(t)
  const c = capture(env)
  t.equal(await keys(['create', '--account', 'acct_doesnotexist0000', '--name', 'k'], c.io), 1)
  t.match(c.err.join('\n'), /no account acct_doesnotexist0000/)
  t.same(c.out, [])
})

t.test('keys list shows the keys newest first, without secrets', async (t) => {
  const { env } = setup(t)
  const { account, key } = await createAccount(env)
  await keys(['create', '--account', account.id, '--name', 'second'], capture(env).io)
  const json = capture(env)
  t.equal(await keys(['list', '--account', account.id, '--json'], json.io), 0)
  const listed = JSON.parse(json.out[0]).keys
  t.same(listed.map((k: { name: string }) => k.name), ['second', 'default'])
  t.notOk(json.out[0].includes(key.key.slice(12)))
  const human = capture(env)
  t.equal(await keys(['list', '--account', account.id], human.io), 0)
  t.equal(human.out.length, 2)
  t.match(human.out[1], new RegExp(`^${key.id} {2}aloft_\\S{6} {2}"default" {2}created \\S+Z {2}live$`))
})

t.test('keys list of an account without keys says so; of an unknown account fails', async (t) => {
  const { env, store } = setup(t)
  const account = await store.createAccount('empty')
  const c = capture(env)
  t.equal(await keys(['list', '--account', account.id], c.io), 0)
  t.same(c.out, [`no keys for account ${account.id}`])
  const unknown = capture(env)
  t.equal(await keys(['list', '--account', 'acct_doesnotexist0000'], unknown.io), 1)
  t.match(unknown.err.join('\n'), /no account/)
})

t.test('keys revoke --id revokes the key, idempotently', async (t) => {
  const { env, store } = setup(t)
  const { key } = await createAccount(env)
  const c = capture(env)
  t.equal(await keys(['revoke', '--id', key.id, '--json'], c.io), 0)
  const revoked = JSON.parse(c.out[0])
  t.type(revoked.revoked_at, 'number')
  t.same(await store.authenticate(key.key), { ok: false, reason: 'revoked_api_key' })
  const again = capture(env)
  t.equal(await keys(['revoke', '--id', key.id], again.io), 0)
  t.match(again.out[0], new RegExp(`^revoked ${key.id} \\(account acct_\\S+\\) at \\S+Z$`))
  const listed = capture(env)
  await keys(['list', '--account', revoked.account_id], listed.io)
  t.match(listed.out[0], / {2}revoked \S+Z$/)
})

t.test('keys revoke of an unknown id fails with exit 1', async (t) => {
  const { env } = setup(t)
  const c = capture(env)
  t.equal(await keys(['revoke', '--id', 'key_doesnotexist00000'], c.io), 1)
  t.match(c.err.join('\n'), /no key key_doesnotexist00000/)
})

t.test('bad or missing arguments print the usage and exit 2', async (t) => {
  const { env } = setup(t)
  const cases: Array<[typeof keys, string[]]> = [
    [accounts, []], [accounts, ['delete']], [accounts, ['create']], [accounts, ['create', '--name', '  ']],
    [accounts, ['create', '--name', 'a', '--bogus']], [accounts, ['create', 'extra', '--name', 'a']],
    [keys, []], [keys, ['rotate']], [keys, ['create', '--account', 'acct_x']], [keys, ['list']],
    [keys, ['revoke']], [keys, ['revoke', '--id']]
  ]
  for (const [cmd, args] of cases) {
    const c = capture(env)
    t.equal(await cmd(args, c.io), 2, args.join(' '))
    t.match(c.err.join('\n'), /usage:/)
    t.same(c.out, [])
  }
})

t.test('--help prints the usage and exits 0', async (t) => {
  for (const cmd of [accounts, keys]) {
    const c = capture({})
    t.equal(await cmd(['--help'], c.io), 0)
    t.match(c.out.join('\n'), /usage:/)
  }
})

t.test('without REDIS_URL the commands point to the admin endpoint and exit 2', async (t) => {
  for (const [cmd, args] of [[accounts, ['create', '--name', 'a']], [keys, ['list', '--account', 'acct_x']]] as const) {
    const c = capture({})
    t.equal(await cmd([...args], c.io), 2)
    t.match(
      c.err.join('\n'),
      /in memory inside the running server[\s\S]*POST \/v1\/admin\/accounts[\s\S]*Bearer \$ALOFT_ADMIN_TOKEN/
    )
  }
})

t.test('an unreachable Redis fails with exit 1 and names the host, not the password', async (t) => {
  const port = await freePort()
  const c = capture({ REDIS_URL: `redis://:hunter2@127.0.0.1:${port}`, ALOFT_REDIS_PREFIX: 'unused:' })
  t.equal(await accounts(['create', '--name', 'a'], c.io), 1)
  const text = c.err.join('\n')
  t.match(text, `cannot reach Redis at 127.0.0.1:${port}`)
  t.notOk(text.includes('hunter2'))
})
