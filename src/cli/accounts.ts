// `aloft accounts create`: makes an account and its first key in the Redis store named by
// REDIS_URL (an operator's job; callers then manage their own keys over HTTP).
import { DEFAULT_REDIS_PREFIX } from '../accounts/index.js'
import {
  type CliIo, command, storeTime, printCreatedKey, processIo, required, SECRET_WARNING, UsageError
} from './keys.js'

const USAGE = `usage:
  aloft accounts create --name NAME [--key-name NAME] [--json]

Creates an account and its first key (named "default" unless --key-name) in the Redis store
named by REDIS_URL (key prefix ALOFT_REDIS_PREFIX, default ${DEFAULT_REDIS_PREFIX}).`

export async function run (args: string[], io: CliIo = processIo): Promise<number> {
  return await command(io, USAGE, args, { name: { type: 'string' }, 'key-name': { type: 'string' } },
    async (sub, opts, store) => {
      if (sub !== 'create') {
        throw new UsageError(sub === undefined ? 'missing subcommand' : `unknown subcommand '${sub}'`)
      }
      const name = required(opts, 'name')
      const keyName = opts['key-name'] === undefined ? 'default' : required(opts, 'key-name')
      const account = await store.createAccount(name)
      const { record, secret } = await store.createKey(account.id, keyName)
      if (opts.json === true) {
        io.out(JSON.stringify({ account, key: { ...record, key: secret } }))
      } else {
        io.out(`account  ${account.id}  ${JSON.stringify(account.name)}  created ${storeTime(account.created_at)}`)
        printCreatedKey(io, record, secret)
      }
      io.err(SECRET_WARNING)
      return 0
    })
}
