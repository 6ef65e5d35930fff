-- KEYS (one account's slot): account, key record, account keys, key_seq. ARGV: id, account id,
-- prefix, name, created_at, secret hash. Returns 0 when the account does not exist, else 1. The
-- lookups outside the account's slot (key_hash, key_owner) are written by the caller afterwards.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'account_id', ARGV[2], 'prefix', ARGV[3], 'name', ARGV[4],
  'created_at', ARGV[5], 'revoked_at', '', 'secret_sha256', ARGV[6])
redis.call('ZADD', KEYS[3], seq, ARGV[1])
return 1
