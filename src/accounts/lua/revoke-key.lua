-- KEYS (one account's slot): key record, live key count, revoked keys, account keys. ARGV: account
-- id, revoked_at, the most revoked keys kept, the key records' name prefix, then the fields to
-- return. The first revoke's time stays (idempotent). Revoked keys beyond the most kept are
-- forgotten, oldest first. Returns 0 when the key is not the account's, else {the fields, {id,
-- secret hash, …} of the keys forgotten} (their lookups in other slots are the caller's to delete).
local f = redis.call('HMGET', KEYS[1], 'account_id', 'revoked_at', 'id')
if f[1] ~= ARGV[1] then return 0 end
local forgotten = {}
if f[2] == '' then
  redis.call('HSET', KEYS[1], 'revoked_at', ARGV[2])
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECR', KEYS[2]) end
  redis.call('ZADD', KEYS[3], redis.call('ZSCORE', KEYS[4], f[3]) or 0, f[3])
  while redis.call('ZCARD', KEYS[3]) > tonumber(ARGV[3]) do
    local oldest = redis.call('ZPOPMIN', KEYS[3])[1]
    local record = ARGV[4] .. oldest
    table.insert(forgotten, oldest)
    table.insert(forgotten, redis.call('HGET', record, 'secret_sha256') or '')
    redis.call('DEL', record)
    redis.call('ZREM', KEYS[4], oldest)
  end
end
return { redis.call('HMGET', KEYS[1], unpack(ARGV, 5)), forgotten }
