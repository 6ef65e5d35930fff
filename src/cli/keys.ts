// `aloft keys create|list|revoke`: operator commands on the Redis account store named by
// REDIS_URL. Also holds the plumbing `aloft accounts` shares (store from the environment, output).
import { parseArgs } from 'node:util'
import { rfc3339 } from '../contract/index.js'
import {
  type AccountStore, createStore, DEFAULT_LIMITS, DEFAULT_REDIS_PREFIX, type KeyRecord,
  StoreUnavailableError, UnknownAccountError
} from '../accounts/index.js'

/** Where a command writes and what environment it reads; tests pass their own. */
export interface CliIo {
  out (line: string): void
  err (line: string): void
  env: NodeJS.ProcessEnv
}

export const processIo: CliIo = {
  out: (line) => { process.stdout.write(line + '\n') },
  err: (line) => { process.stderr.write(line + '\n') },
  env: process.env
}

/** Thrown by argument checks; run() turns it into the usage text and exit code 2. */
export class UsageError extends Error {}

const USAGE = `usage:
  aloft keys create --account ID --name NAME [--json]
  aloft keys list --account ID [--json]
  aloft keys revoke --id KEY_ID [--json]

Works on the Redis store named by REDIS_URL (key prefix ALOFT_REDIS_PREFIX, default ${DEFAULT_REDIS_PREFIX}).`

export const SECRET_WARNING = 'Store this secret now: it is shown only once and cannot be recovered.'

export async function run (args: string[], io: CliIo = processIo): Promise<number> {
  return await command(io, USAGE, args,
    { account: { type: 'string' }, name: { type: 'string' }, id: { type: 'string' } },
    async (sub, opts, store) => {
      if (sub === 'create') {
        const { record, secret } = await store.createKey(required(opts, 'account'), required(opts, 'name'))
        if (opts.json === true) io.out(JSON.stringify({ ...record, key: secret }))
        else printCreatedKey(io, record, secret)
        io.err(SECRET_WARNING)
        return 0
      }
      if (sub === 'list') {
        const accountId = required(opts, 'account')
        if (await store.getAccount(accountId) === null) return notFound(io, `no account ${accountId}`)
        const keys = await store.listKeys(accountId)
        if (opts.json === true) io.out(JSON.stringify({ keys }))
        else if (keys.length === 0) io.out(`no keys for account ${accountId}`)
        else for (const key of keys) io.out(keyLine(key))
        return 0
      }
      if (sub === 'revoke') {
        const keyId = required(opts, 'id')
        const key = await store.getKey(keyId)
        const revoked = key === null ? null : await store.revokeKey(key.account_id, keyId)
        if (revoked === null) return notFound(io, `no key ${keyId}`)
        if (opts.json === true) io.out(JSON.stringify(revoked))
        else io.out(`revoked ${revoked.id} (account ${revoked.account_id}) at ${storeTime(revoked.revoked_at ?? 0)}`)
        return 0
      }
      throw new UsageError(sub === undefined ? 'missing subcommand' : `unknown subcommand '${sub}'`)
    })
}

type Options = Record<string, string | boolean | undefined>
type StringOptions = Record<string, { type: 'string' }>

/**
 * Parses `<subcommand> [--options] [--json]`, opens the store from the environment, runs `act`
 * and closes the store. Exit codes: 0 done, 1 not found or store unreachable, 2 usage.
 */
export async function command (
  io: CliIo, usage: string, args: string[], options: StringOptions,
  act: (sub: string | undefined, opts: Options, store: AccountStore) => Promise<number>
): Promise<number> {
  let sub: string | undefined
  let opts: Options
  try {
    const parsed = parseArgs({ args,
      options: { ...options, json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
    if (parsed.values.help === true) {
      io.out(usage)
      return 0
    }
    if (parsed.positionals.length > 1) throw new UsageError(`unexpected argument '${parsed.positionals[1]}'`)
    sub = parsed.positionals[0]
    opts = parsed.values
  } catch (err) {
    io.err(`aloft: ${(err as Error).message}\n\n${usage}`)
    return 2
  }

  const url = io.env.REDIS_URL
  if (url === undefined || url === '') {
    io.err('aloft: REDIS_URL is not set. Without Redis the account store lives in memory inside the running server,\n' +
      'so this command cannot reach it: create accounts there with\n' +
      '  POST /v1/admin/accounts  (Authorization: Bearer $ALOFT_ADMIN_TOKEN)\n' +
      'or point REDIS_URL at the Redis the servers use.')
    return 2
  }
  const store = createStore({ redisUrl: url, prefix: io.env.ALOFT_REDIS_PREFIX || DEFAULT_REDIS_PREFIX,
    limits: DEFAULT_LIMITS })
  try {
    return await act(sub, opts, store)
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`aloft: ${err.message}\n\n${usage}`)
      return 2
    }
    if (err instanceof UnknownAccountError) return notFound(io, err.message)
    if (err instanceof StoreUnavailableError) {
      io.err(`aloft: cannot reach Redis at ${hostOf(url)}: ${err.message}`)
      return 1
    }
    throw err
  } finally {
    await store.close()
  }
}

export function required (opts: Options, name: string): string {
  const value = opts[name]
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`)
  return value
}

function notFound (io: CliIo, message: string): number {
  io.err(`aloft: ${message}`)
  return 1
}

export function printCreatedKey (io: CliIo, record: KeyRecord, secret: string): void {
  io.out(`key      ${record.id}  ${JSON.stringify(record.name)}  prefix ${record.prefix}  account ${record.account_id}`)
  io.out(`secret   ${secret}`)
}

function keyLine (key: KeyRecord): string {
  const state = key.revoked_at === null ? 'live' : `revoked ${storeTime(key.revoked_at)}`
  return `${key.id}  ${key.prefix}  ${JSON.stringify(key.name)}  created ${storeTime(key.created_at)}  ${state}`
}

/** An account store's time (epoch seconds) as RFC 3339. */
export function storeTime (epochSeconds: number): string {
  return rfc3339(epochSeconds * 1000)
}

/** host:port only: the URL may carry a password. */
function hostOf (url: string): string {
  try {
    return new URL(url).host
  } catch {
    return '(unparseable REDIS_URL)'
  }
}
