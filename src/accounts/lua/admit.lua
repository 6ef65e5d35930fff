-- include: now gcra
-- A rate-limited route's admission in one round trip: the key (as authenticate), then, for a live
-- key, one request from its account's bucket (as take-request). The key record and the rate
-- bucket are found from the key_hash value, so they are not in KEYS: one Redis, not a Cluster.
-- KEYS: key_hash. ARGV: clock, interval µs, burst, prefix, secret hash.
-- Returns {0} unknown key, {1} revoked, or {2, key id, account id, gcra_take's triple}.
local key_id = redis.call('GET', KEYS[1])
if not key_id then return {0} end
local f = redis.call('HMGET', ARGV[4] .. 'key:' .. key_id, 'account_id', 'revoked_at', 'secret_sha256')
if not f[1] or f[3] ~= ARGV[5] then return {0} end
if f[2] ~= '' then return {1} end
local r = gcra_take(ARGV[4] .. 'rate:' .. f[1], now_us(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {2, key_id, f[1], r[1], r[2], r[3]}
