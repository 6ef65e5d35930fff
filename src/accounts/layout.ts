// Where the Redis store keeps what (P is the configured prefix, `aloft:` by default). Everything of
// one account shares the hash tag {acct_id}, so a script touching an account's keys runs on Redis
// Cluster as on one server:
//   P{acct}:account        hash    id, name, created_at
//   P{acct}:keys           zset    member key id, score = P{acct}:key_seq at creation (newest highest)
//   P{acct}:key_seq        string  counter ordering the account's keys
//   P{acct}:live_keys      string  how many of the account's keys are live (made on first need)
//   P{acct}:revoked        zset    member revoked key id, score its key_seq: the revoked keys kept
//                                  (beyond the most kept, the oldest are forgotten)
//   P{acct}:key:{key_id}   hash    id, account_id, prefix, name, created_at, revoked_at ('' while
//                                  live), secret_sha256
//   P{acct}:allowance      hash    day (UTC days since the epoch), used; expires an hour after that
//                                  day ends, and a stale day is reset on first touch
//   P{acct}:rate           string  GCRA theoretical arrival time in µs; expires once the bucket is
//                                  full again (an absent key is a full bucket)
//   P{public}:share:{digest} hash  a public client's day (day, used), as the allowance hash; in the
//                                  shared allowance's slot (P{public}:allowance), so one script
//                                  charges both
//   P key_hash:{sha256}    string  "acct_id key_id": the lookup by secret (kept after a revoke, so a
//                                  revoked key is told apart from an unknown one; never changes)
//   P key_owner:{key_id}   string  acct_id (the operator revokes by key id alone)
//   P layout               string  "2": this layout; its absence after a reconnect means Redis lost
//                                  aloft's data
// Layout 1 (aloft 0.1 before hash tags) is moved to this one once, by the first instance to start.
import type { RedisClient } from '../redis.js'

export const LAYOUT = '2'

export class KeyLayout {
  constructor (readonly prefix: string) {}
  account (acct: string): string { return `${this.prefix}{${acct}}:account` }
  keys (acct: string): string { return `${this.prefix}{${acct}}:keys` }
  keySeq (acct: string): string { return `${this.prefix}{${acct}}:key_seq` }
  liveKeys (acct: string): string { return `${this.prefix}{${acct}}:live_keys` }
  revoked (acct: string): string { return `${this.prefix}{${acct}}:revoked` }
  /** Every key record's name but the id (scripts build the account's other records' names from it). */
  keyRecordPrefix (acct: string): string { return `${this.prefix}{${acct}}:key:` }
  key (acct: string, keyId: string): string { return `${this.prefix}{${acct}}:key:${keyId}` }
  allowance (acct: string): string { return `${this.prefix}{${acct}}:allowance` }
  rate (acct: string): string { return `${this.prefix}{${acct}}:rate` }
  /** A public client's daily share (`public:<digest>`), in the slot of the allowance all public callers share. */
  publicShare (client: string, shared: string): string {
    return `${this.prefix}{${shared}}:share:${client.slice(client.indexOf(':') + 1)}`
  }
  keyHash (sha256: string): string { return `${this.prefix}key_hash:${sha256}` }
  keyOwner (keyId: string): string { return `${this.prefix}key_owner:${keyId}` }
  get layout (): string { return `${this.prefix}layout` }
  get migrationLock (): string { return `${this.prefix}layout_migration` }
}

/** The keys of layout 1 under a prefix, found by SCAN on every node that holds data. */
async function scanAll (redis: RedisClient, pattern: string): Promise<string[]> {
  const nodes = 'nodes' in redis ? redis.nodes('master') : [redis]
  const found = new Set<string>()
  for (const node of nodes) {
    let cursor = '0'
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500)
      for (const k of batch) found.add(k)
      cursor = next
    } while (cursor !== '0')
  }
  return [...found]
}

const glob = (s: string): string => s.replace(/[*?[\]\\]/g, '\\$&')

/**
 * Moves accounts, keys, allowances and rate buckets of layout 1 (`P account:ID`, `P key:ID`,
 * `P key_hash:SHA` → key id, `P allowance:ID`, `P rate:ID`, `P key_seq`) to this layout, key by
 * key, then marks the layout. Copies before it deletes, so an interrupted move is finished by the
 * next start. Returns how many accounts it moved.
 */
export async function migrateFromLayout1 (redis: RedisClient, k: KeyLayout): Promise<number> {
  const p = k.prefix
  const accounts = (await scanAll(redis, `${glob(p)}account:*`)).filter((key) => !key.endsWith(':keys'))
  for (const oldAccount of accounts) {
    const acct = oldAccount.slice(`${p}account:`.length)
    const account = await redis.hgetall(oldAccount)
    if (Object.keys(account).length > 0) await redis.hset(k.account(acct), account)
    const members = await redis.zrange(`${oldAccount}:keys`, '0', '-1', 'WITHSCORES')
    let seq = 0
    for (let i = 0; i < members.length; i += 2) {
      const keyId = members[i]
      const score = Number(members[i + 1])
      seq = Math.max(seq, score)
      const record = await redis.hgetall(`${p}key:${keyId}`)
      if (Object.keys(record).length === 0) continue
      await redis.hset(k.key(acct, keyId), record)
      await redis.zadd(k.keys(acct), score, keyId)
      await redis.set(k.keyOwner(keyId), acct)
      if (record.secret_sha256 !== undefined) await redis.set(k.keyHash(record.secret_sha256), `${acct} ${keyId}`)
    }
    if (seq > 0) await redis.set(k.keySeq(acct), String(seq))
    const allowance = await redis.hgetall(`${p}allowance:${acct}`)
    if (Object.keys(allowance).length > 0) {
      await redis.hset(k.allowance(acct), allowance)
      const ttl = await redis.pttl(`${p}allowance:${acct}`)
      if (ttl > 0) await redis.pexpire(k.allowance(acct), ttl)
    }
    const tat = await redis.get(`${p}rate:${acct}`)
    const ttl = await redis.pttl(`${p}rate:${acct}`)
    if (tat !== null && ttl > 0) await redis.set(k.rate(acct), tat, 'PX', ttl)
    for (let i = 0; i < members.length; i += 2) await redis.del(`${p}key:${members[i]}`)
    for (const old of [`${oldAccount}:keys`, `${p}allowance:${acct}`, `${p}rate:${acct}`,
      oldAccount]) await redis.del(old)
  }
  await redis.del(`${p}key_seq`)
  await redis.set(k.layout, LAYOUT)
  return accounts.length
}
