// bench/redis-capacity: how many admissions (src/accounts/lua/admit.lua, the one round trip of a
// keyed request) one Redis runs per second. A redis-server of its own (AOF, fsync each second;
// `--fsync always|no-aof` for the others) holding `--accounts` accounts' key records, driven by
// redis-benchmark with aloft's own EVALSHA (its key names, a bucket that always admits, so every call
// writes): one hot account, or a random account per call; one command at a time per connection, or
// 16 pipelined as an auto-pipelining aloft process sends them under load. The rate is the
// machine's (redis-benchmark shares it); the Redis main thread's CPU per call is Redis's own cost,
// and 1 / that is what one Redis core serves when it does nothing else.
//   npm run build && node dist/bench/redis-capacity.js [--calls 200000] [--accounts 10000] [--fsync everysec]
// Writes bench/results/redis-capacity.json.
import { spawnSync } from 'node:child_process'
import { Redis } from 'ioredis'
import { KeyLayout } from '../src/accounts/layout.js'
import { SCRIPTS } from '../src/accounts/scripts.js'
import { hashSecret, newSecret } from '../src/accounts/secrets.js'
import { int, ms, numberArg, table, writeResult } from './lib/index.js'
import { ownRedis, readRedis } from './lib/redis-counts.js'

const CALLS = numberArg('calls', 200_000)
const ACCOUNTS = numberArg('accounts', 10_000)
const at = process.argv.indexOf('--fsync')
const FSYNC = (at > 0 ? process.argv[at + 1] : 'everysec') as 'everysec' | 'always' | 'no-aof'
if (!['everysec', 'always', 'no-aof'].includes(FSYNC)) throw new Error('--fsync: everysec, always or no-aof')

const k = new KeyLayout('aloft:')
const HASH = hashSecret(newSecret().secret)
/** redis-benchmark's __rand_int__ is 12 digits: the account ids it picks, as aloft's are about as long. */
const accountId = (n: number): string => `acct_${String(n).padStart(12, '0')}`
const KEY_ID = 'key_0123456789abcdef'

/** The EVALSHA as RedisStore.admit sends it: key record, rate bucket; server clock, 1 µs interval, huge burst. */
function admitArgs (account: string): string[] {
  return ['EVALSHA', SCRIPTS.admit.sha, '2', k.key(account, KEY_ID), k.rate(account), '', '1', '1000000000', HASH]
}

interface Scenario { name: string, clients: number, pipeline: number, command: string[] }
const SCENARIOS: Scenario[] = [
  { name: 'one hot account', clients: 50, pipeline: 1, command: admitArgs(accountId(0)) },
  { name: 'one hot account', clients: 50, pipeline: 16, command: admitArgs(accountId(0)) },
  { name: `random of ${ACCOUNTS} accounts`, clients: 50, pipeline: 1, command: admitArgs('acct___rand_int__') },
  { name: `random of ${ACCOUNTS} accounts`, clients: 50, pipeline: 16, command: admitArgs('acct___rand_int__') },
  { name: 'PING (the floor of one call)', clients: 50, pipeline: 16, command: ['PING'] }
]

const redis = await ownRedis(FSYNC)
const client = new Redis(redis.url)
try {
  await client.script('LOAD', SCRIPTS.admit.lua)
  for (let n = 0; n < ACCOUNTS; n += 1000) {
    const batch = client.pipeline()
    for (let a = n; a < Math.min(ACCOUNTS, n + 1000); a++) {
      batch.hset(k.key(accountId(a), KEY_ID), { id: KEY_ID, revoked_at: '', secret_sha256: HASH })
    }
    await batch.exec()
  }
  const check = await client.call(...admitArgs(accountId(0)) as [string, ...string[]]) as number[]
  if (check[0] !== 2 || check[1] !== 1) throw new Error(`the admit script did not admit: ${JSON.stringify(check)}`)
  const rows = []
  for (const s of SCENARIOS) {
    const before = await readRedis(client)
    const bench = spawnSync('redis-benchmark', ['-p', String(redis.port), '-c', String(s.clients), '-n', String(CALLS),
      '-P', String(s.pipeline), '-r', String(ACCOUNTS), '--csv', ...s.command], { encoding: 'utf8' })
    const after = await readRedis(client)
    if (bench.status !== 0) throw new Error(`redis-benchmark failed: ${bench.stderr}`)
    const rps = Number(/^"[^"]*","([\d.]+)"/m.exec(bench.stdout)?.[1])
    const name = s.command[0].toLowerCase()
    const ran = (after.calls.get(name) ?? 0) - (before.calls.get(name) ?? 0)
    if (ran < CALLS) throw new Error(`${s.name}: Redis ran ${ran} ${name}, not ${CALLS}`)
    const cpuUs = (after.cpuUs - before.cpuUs) / CALLS
    rows.push({ scenario: s.name, command: name, clients: s.clients, pipeline: s.pipeline, calls_per_second: rps,
      redis_cpu_us_per_call: cpuUs, calls_per_redis_core_second: 1e6 / cpuUs })
  }
  console.log(`bench/redis-capacity: ${CALLS} calls per row, Redis ${FSYNC === 'no-aof' ? 'without AOF' : `AOF ` +
    `fsync ${FSYNC}`}, redis-benchmark on the same machine\n`)
  console.log(table(['scenario', 'command', 'connections', 'pipeline', 'calls/s (this machine)',
    'Redis CPU µs/call', 'calls/s per Redis core'], rows.map((r) => [r.scenario, r.command, String(r.clients),
    String(r.pipeline), int(r.calls_per_second), ms(r.redis_cpu_us_per_call, 2), int(r.calls_per_redis_core_second)])))
  const path = writeResult('redis-capacity', { calls: CALLS, accounts: ACCOUNTS, fsync: FSYNC, rows })
  console.log(`\nwrote ${path}`)
} finally {
  client.disconnect()
  await redis.close()
}
