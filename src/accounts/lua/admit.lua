-- include: now gcra
-- A rate-limited route's admission in one round trip: the key record (live, and the one whose
-- secret this is), then one request from its account's bucket (as take-request). Both keys are in
-- the account's slot, so this runs on Redis Cluster too.
-- KEYS: key record, rate. ARGV: clock, interval µs, burst, secret hash.
-- Returns {0} unknown key, {1} revoked, or {2, gcra_take's triple}.
local f = redis.call('HMGET', KEYS[1], 'revoked_at', 'secret_sha256')
if not f[2] or f[2] ~= ARGV[4] then return {0} end
if f[1] ~= '' then return {1} end
local r = gcra_take(KEYS[2], now_us(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {2, r[1], r[2], r[3]}
