-- include: now today
-- A public client's attempt, charged to its own share and to the allowance all public callers
-- share, both or neither (both keys in the shared allowance's slot).
-- KEYS: the client's share, the shared allowance. ARGV: clock, the client's limit, the shared limit.
-- Returns {charged 0|1, the client's used, the shared used, ms_to_reset}.
local shared = used_today(KEYS[2])
if used >= tonumber(ARGV[2]) or shared >= tonumber(ARGV[3]) then return {0, used, shared, ms_to_reset} end
for k, count in ipairs({used + 1, shared + 1}) do
  redis.call('HSET', KEYS[k], 'day', day, 'used', count)
  redis.call('PEXPIRE', KEYS[k], ms_to_reset + 3600000)
end
return {1, used + 1, shared + 1, ms_to_reset}
