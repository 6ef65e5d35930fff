-- include: now today
-- KEYS: allowance. ARGV: clock, limit. Charges one attempt if any remain today.
-- Returns {charged 0|1, used, ms_to_reset}.
if used >= tonumber(ARGV[2]) then return {0, used, ms_to_reset} end
used = used + 1
redis.call('HSET', KEYS[1], 'day', day, 'used', used)
redis.call('PEXPIRE', KEYS[1], ms_to_reset + 3600000)
return {1, used, ms_to_reset}
