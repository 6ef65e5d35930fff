-- KEYS: account, key, key_hash, account keys, key_seq. ARGV: id, account id, prefix, name,
-- created_at, secret hash. Returns 0 when the account does not exist, else 1.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'account_id', ARGV[2], 'prefix', ARGV[3], 'name', ARGV[4],
  'created_at', ARGV[5], 'revoked_at', '', 'secret_sha256', ARGV[6])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
return 1
