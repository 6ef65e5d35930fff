-- KEYS (one account's slot): account, key record, account keys, key_seq, live key count. ARGV: id,
-- account id, prefix, name, created_at, secret hash, the most live keys, the key records' name
-- prefix. Returns 0 when the account does not exist, -1 when it holds its most live keys, else 1.
-- The lookups outside the account's slot (key_hash, key_owner) are written by the caller afterwards.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local live = tonumber(redis.call('GET', KEYS[5]))
if live == nil then
  -- an account from before the count: its live keys, counted once
  live = 0
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if redis.call('HGET', ARGV[8] .. id, 'revoked_at') == '' then live = live + 1 end
  end
end
if live >= tonumber(ARGV[7]) then
  redis.call('SET', KEYS[5], live)
  return -1
end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'account_id', ARGV[2], 'prefix', ARGV[3], 'name', ARGV[4],
  'created_at', ARGV[5], 'revoked_at', '', 'secret_sha256', ARGV[6])
redis.call('ZADD', KEYS[3], seq, ARGV[1])
redis.call('SET', KEYS[5], live + 1)
return 1
