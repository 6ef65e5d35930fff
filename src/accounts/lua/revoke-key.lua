-- KEYS: key. ARGV: account id, revoked_at, then the fields to return. The first revoke's time
-- stays (idempotent). Returns 0 when the key is not the account's, else the fields.
local f = redis.call('HMGET', KEYS[1], 'account_id', 'revoked_at')
if f[1] ~= ARGV[1] then return 0 end
if f[2] == '' then redis.call('HSET', KEYS[1], 'revoked_at', ARGV[2]) end
return redis.call('HMGET', KEYS[1], unpack(ARGV, 3))
